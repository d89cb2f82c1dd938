/**
 * The hops of a network in its project plane: the Network, its context for the location and the
 * context's Subnet (controllers.md §3–§5).
 *
 * Guarantees: the Network is judged as the presence controller judges it (absent, being deleted,
 * named in another namespace) and, for a claim, by the families it carries; the context as the
 * presence controller judges an existing one (another pair's, being deleted, an earlier
 * network's) and then by its `Ready`; a Subnet by `Allocated`, since `Programmed` is the data
 * plane's.
 */
import { networkBindingMessages } from '../apis/networking/v1alpha/network-binding.ts';
import { networkContextName, type NetworkContext } from '../apis/networking/v1alpha/network-context.ts';
import type { Network } from '../apis/networking/v1alpha/network.ts';
import { ipv6SubnetName, type Subnet } from '../apis/networking/v1alpha/subnet.ts';
import { advice, ipamAdvice } from './advice.ts';
import { projectContext } from './contexts.ts';
import { conditionOf, isTrue, qualified, shown, stateOf, type Hop, type Pair, type Route } from './hop.ts';
import { notes } from './notes.ts';
import { probeGet } from './probe.ts';
import { Kinds, type PlaneReader } from './reader.ts';

export interface NetworkDemand {
  /** The binding's `spec.network.namespace`, when set. */
  networkNamespace?: string;
  /** Families a claim requests; the network must carry each. */
  families?: string[];
}

export async function networkHop(
  reader: PlaneReader,
  route: Route,
  name: string,
  options: NetworkDemand,
): Promise<{ hop: Hop; object?: Network }> {
  const { project, projectNamespace } = route;
  const plane = projectContext(project);
  const hop: Hop = {
    id: 'network',
    plane,
    object: `Network ${qualified(name, projectNamespace)}`,
    state: 'ok',
  };
  if (options.networkNamespace && options.networkNamespace !== projectNamespace) {
    return {
      hop: {
        ...hop,
        object: `Network ${qualified(name, options.networkNamespace)}`,
        state: 'refusing',
        note: networkBindingMessages.misdirected(name, options.networkNamespace, project, projectNamespace),
        advice: advice.misdirectedNetwork(projectNamespace),
      },
    };
  }
  const found = await probeGet<Network>(reader, plane, Kinds.network, name, projectNamespace);
  if (!found.found) return { hop: { ...hop, state: 'unreachable', note: found.unreachable } };
  const network = found.value;
  if (!network)
    return {
      hop: {
        ...hop,
        state: 'missing',
        note: networkBindingMessages.networkNotFound(name, projectNamespace, project),
        advice: advice.networkMissing(project, projectNamespace, name),
      },
    };
  if (network.metadata.deletionTimestamp)
    return {
      hop: {
        ...hop,
        state: 'refusing',
        note: networkBindingMessages.networkDeleting(name, projectNamespace, project),
        advice: advice.networkDeleting(name),
      },
      object: network,
    };
  const carried = network.spec.ipFamilies ?? ['IPv6'];
  const ready = conditionOf(network, 'Ready');
  const judged: Hop = { ...hop, condition: shown(ready), note: notes.familiesCarried(carried) };
  const lacking = (options.families ?? []).find((family) => !carried.includes(family as 'IPv4' | 'IPv6'));
  if (lacking) {
    return {
      hop: {
        ...judged,
        state: 'refusing',
        advice: advice.familyNotCarried(project, projectNamespace, name, lacking),
      },
      object: network,
    };
  }
  if (ready?.status === 'False')
    return {
      hop: { ...judged, state: 'refusing', advice: ipamAdvice(ready.reason, project) },
      object: network,
    };
  return { hop: judged, object: network };
}

export async function projectContextHop(
  reader: PlaneReader,
  route: Route,
  pair: Pair,
  network: Network | undefined,
): Promise<{ hop: Hop; object?: NetworkContext }> {
  const { project, projectNamespace } = route;
  const plane = projectContext(project);
  const name = networkContextName(pair.network, pair.location);
  const hop: Hop = {
    id: 'project-context',
    plane,
    object: `NetworkContext ${qualified(name, projectNamespace)}`,
    state: 'ok',
  };
  const found = await probeGet<NetworkContext>(reader, plane, Kinds.networkContext, name, projectNamespace);
  if (!found.found) return { hop: { ...hop, state: 'unreachable', note: found.unreachable } };
  const context = found.value;
  if (!context) return { hop: { ...hop, state: 'missing', advice: advice.contextMissing } };
  const ready = conditionOf(context, 'Ready');
  const judged: Hop = { ...hop, condition: shown(ready) };
  if (context.spec.network.name !== pair.network || context.spec.location.name !== pair.location) {
    return {
      hop: {
        ...judged,
        state: 'refusing',
        note: notes.projectContextOfOtherPair(context.spec.network.name, context.spec.location.name),
        advice: advice.nameConflict(name),
      },
    };
  }
  if (context.metadata.deletionTimestamp)
    return {
      hop: { ...judged, state: 'waiting', note: notes.deleting, advice: advice.contextDeleting(name) },
    };
  const owner = context.metadata.ownerReferences?.find((reference) => reference.controller);
  if (network && owner && owner.kind === 'Network' && owner.uid !== network.metadata.uid) {
    return {
      hop: {
        ...judged,
        state: 'waiting',
        note: notes.ofEarlierNetwork,
        advice: advice.contextOfEarlierNetwork(name),
      },
    };
  }
  if (isTrue(ready)) return { hop: judged, object: context };
  const state = stateOf(ready);
  const why = state === 'refusing' ? ipamAdvice(ready!.reason, project) : advice.contextWaiting;
  return { hop: { ...judged, state, advice: why }, object: context };
}

export async function projectSubnetHop(
  reader: PlaneReader,
  route: Route,
  context: string,
): Promise<{ hop: Hop; object?: Subnet }> {
  const plane = projectContext(route.project);
  const name = ipv6SubnetName(context);
  const hop: Hop = {
    id: 'project-subnet',
    plane,
    object: `Subnet ${qualified(name, route.projectNamespace)}`,
    state: 'ok',
  };
  const found = await probeGet<Subnet>(reader, plane, Kinds.subnet, name, route.projectNamespace);
  if (!found.found) return { hop: { ...hop, state: 'unreachable', note: found.unreachable } };
  const subnet = found.value;
  if (!subnet) return { hop: { ...hop, state: 'missing', advice: advice.subnetMissing(context) } };
  return { hop: judgeSubnet(hop, subnet), object: subnet };
}

/** A Subnet is netpresence's part done once `Allocated`; `Programmed` belongs to the data plane. */
export function judgeSubnet(hop: Hop, subnet: Subnet): Hop {
  const allocated = conditionOf(subnet, 'Allocated');
  const ready = conditionOf(subnet, 'Ready');
  if (!isTrue(allocated))
    return { ...hop, state: 'waiting', condition: shown(allocated), advice: advice.subnetWaiting };
  if (isTrue(ready)) return { ...hop, condition: shown(ready) };
  return { ...hop, condition: shown(ready), note: notes.dataPlane(`${ready?.reason ?? 'Ready absent'}`) };
}
