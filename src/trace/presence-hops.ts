/**
 * The hops a (hub namespace, network, location) pair passes through above the cells: the hub
 * namespace's routing, the project, its namespace and LocationBinding, the Network, the project
 * context and Subnet, their hub copies and the location's policy (DESIGN.md §1). Shared by the
 * binding and the claim trace. The routing hops are judged here; the project-plane objects in
 * project-hops.ts, the hub copies and the policy in hub-hops.ts.
 *
 * Guarantees: hops come back in data-flow order, one per object, each judged by the rule the
 * controller that writes the next hop applies (controllers.md §5, §6); a hop whose input is
 * missing or unreadable is `unchecked`, never guessed. A project context's `Ready` is judged as
 * the presence controller judges it; a Subnet by `Allocated` (its `Programmed` is the data
 * plane's); a hub copy by presence, its location label and a spec equal to its source.
 */
import type { LocationBinding } from '../apis/networking/v1alpha/location-binding.ts';
import { networkBindingMessages } from '../apis/networking/v1alpha/network-binding.ts';
import { networkContextName, type NetworkContext } from '../apis/networking/v1alpha/network-context.ts';
import { type Subnet } from '../apis/networking/v1alpha/subnet.ts';
import { hubNamespaceName } from '../apis/common/upstream.ts';
import type { Project } from '../apis/resourcemanager/v1alpha1/project.ts';
import { routeNamespace } from '../controllers/shared/hub-routing.ts';
import { advice } from './advice.ts';
import { HUB_CONTEXT, PLATFORM_CONTEXT, projectContext } from './contexts.ts';
import {
  conditionOf,
  isTrue,
  qualified,
  shown,
  stateOf,
  unchecked,
  type Hop,
  type Pair,
  type Route,
} from './hop.ts';
import { hubHops } from './hub-hops.ts';
import { notes } from './notes.ts';
import { probeGet } from './probe.ts';
import { networkHop, projectContextHop, projectSubnetHop, type NetworkDemand } from './project-hops.ts';
import { Kinds, type PlaneReader } from './reader.ts';

export type PresenceOptions = NetworkDemand;

/** What the chain found, for the hops below it. */
export interface Presence {
  hops: Hop[];
  route?: Route;
  projectContext?: NetworkContext;
  hubContext?: NetworkContext;
  hubSubnet?: Subnet;
  /** Whether the network carries IPv6 here, so that a Subnet is expected. */
  subnetExpected: boolean;
}

/** The hops from the hub namespace of `pair` down to its hub copies and policy. */
export async function presenceHops(
  reader: PlaneReader,
  pair: Pair,
  options: PresenceOptions = {},
): Promise<Presence> {
  const hops: Hop[] = [];
  const namespaceHop = await hubNamespaceHop(reader, pair.hubNamespace);
  hops.push(namespaceHop.hop);
  const route = namespaceHop.route;
  const context = networkContextName(pair.network, pair.location);
  if (!route) {
    const why = notes.missingAbove(`hub namespace "${pair.hubNamespace}"`);
    hops.push(
      unchecked('project', PLATFORM_CONTEXT, 'Project', why),
      unchecked('network', '?', `Network ${pair.network}`, why),
      unchecked('project-context', '?', `NetworkContext ${context}`, why),
    );
    return { hops, subnetExpected: false };
  }
  const plane = projectContext(route.project);
  hops.push(await projectHop(reader, route.project));
  const namespace = await projectNamespaceHop(reader, route, pair.hubNamespace);
  hops.push(namespace);
  if (namespace.state === 'unreachable') {
    const why = notes.unreadable(`plane "${plane}"`);
    hops.push(
      unchecked('location-binding', plane, `LocationBinding ${pair.location}`, why),
      unchecked('network', plane, `Network ${qualified(pair.network, route.projectNamespace)}`, why),
      unchecked(
        'project-context',
        plane,
        `NetworkContext ${qualified(context, route.projectNamespace)}`,
        why,
      ),
    );
    const hub = await hubHops(reader, pair, undefined, false);
    return { hops: [...hops, ...hub.hops], route, subnetExpected: false };
  }
  hops.push(await locationBindingHop(reader, route, pair.location));
  const network = await networkHop(reader, route, pair.network, options);
  hops.push(network.hop);
  const projected = await projectContextHop(reader, route, pair, network.object);
  hops.push(projected.hop);
  const source = projected.object;
  const subnetExpected = (source?.spec.ipFamilies ?? []).includes('IPv6');
  let sourceSubnet: Subnet | undefined;
  if (source && subnetExpected) {
    const subnet = await projectSubnetHop(reader, route, context);
    hops.push(subnet.hop);
    sourceSubnet = subnet.object;
  }
  const hub = await hubHops(reader, pair, source, subnetExpected, sourceSubnet);
  return { hops: [...hops, ...hub.hops], route, projectContext: source, subnetExpected, ...hub.copies };
}

export async function hubNamespaceHop(
  reader: PlaneReader,
  namespace: string,
): Promise<{ hop: Hop; route?: Route }> {
  const object = `Namespace ${namespace}`;
  const found = await probeGet(reader, HUB_CONTEXT, Kinds.namespace, namespace);
  if (!found.found) {
    return {
      hop: {
        id: 'hub-namespace',
        plane: HUB_CONTEXT,
        object,
        state: 'unreachable',
        note: found.unreachable,
        advice: advice.planeUnreadable(HUB_CONTEXT),
      },
    };
  }
  if (!found.value) {
    const hop: Hop = { id: 'hub-namespace', plane: HUB_CONTEXT, object, state: 'missing' };
    return { hop: { ...hop, advice: advice.hubNamespaceMissing(namespace) } };
  }
  const route = routeNamespace(namespace, found.value);
  if (!route.resolved) {
    return {
      hop: {
        id: 'hub-namespace',
        plane: HUB_CONTEXT,
        object,
        state: 'refusing',
        note: route.message,
        advice: advice.hubNamespaceUnlabelled(namespace),
      },
    };
  }
  const resolved = { project: route.project, projectNamespace: route.projectNamespace };
  return {
    hop: { id: 'hub-namespace', plane: HUB_CONTEXT, object, state: 'ok', note: notes.routesTo(resolved) },
    route: resolved,
  };
}

async function projectHop(reader: PlaneReader, project: string): Promise<Hop> {
  const hop: Hop = { id: 'project', plane: PLATFORM_CONTEXT, object: `Project ${project}`, state: 'ok' };
  const found = await probeGet<Project>(reader, PLATFORM_CONTEXT, Kinds.project, project);
  if (!found.found)
    return { ...hop, state: 'unreachable', note: found.unreachable, advice: advice.platformUnreadable };
  if (!found.value) return { ...hop, state: 'missing', advice: advice.projectMissing(project) };
  const ready = conditionOf(found.value, 'Ready');
  if (isTrue(ready)) return { ...hop, condition: shown(ready) };
  return { ...hop, state: stateOf(ready), condition: shown(ready), advice: advice.projectNotReady(project) };
}

async function projectNamespaceHop(reader: PlaneReader, route: Route, hubNamespace: string): Promise<Hop> {
  const plane = projectContext(route.project);
  const hop: Hop = {
    id: 'project-namespace',
    plane,
    object: `Namespace ${route.projectNamespace}`,
    state: 'ok',
  };
  const found = await probeGet(reader, plane, Kinds.namespace, route.projectNamespace);
  if (!found.found)
    return { ...hop, state: 'unreachable', note: found.unreachable, advice: advice.planeUnreadable(plane) };
  if (!found.value)
    return {
      ...hop,
      state: 'missing',
      advice: advice.projectNamespaceMissing(route.project, route.projectNamespace),
    };
  const uid = found.value.metadata.uid ?? '';
  if (hubNamespaceName(uid) !== hubNamespace) {
    return {
      ...hop,
      state: 'refusing',
      note: notes.namespaceUid(uid, hubNamespace),
      advice: advice.projectNamespaceReplaced(hubNamespace, hubNamespaceName(uid)),
    };
  }
  return hop;
}

async function locationBindingHop(reader: PlaneReader, route: Route, location: string): Promise<Hop> {
  const plane = projectContext(route.project);
  const hop: Hop = { id: 'location-binding', plane, object: `LocationBinding ${location}`, state: 'ok' };
  const found = await probeGet<LocationBinding>(reader, plane, Kinds.locationBinding, location);
  if (!found.found) return { ...hop, state: 'unreachable', note: found.unreachable };
  if (!found.value)
    return {
      ...hop,
      state: 'missing',
      note: networkBindingMessages.locationNotAvailable(route.project, location),
      advice: advice.locationBindingMissing(route.project, location),
    };
  return hop;
}
