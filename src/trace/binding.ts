/**
 * `traceBinding`: the hops of one NetworkBinding, from the binding on the hub down to every cell
 * serving its location — the binding, its hub namespace's routing, the project, the project
 * namespace, the LocationBinding, the Network, the project context and Subnet, their hub copies,
 * the policy `location-<loc>`, and for each Cluster labelled with the location, the Cluster and
 * its copies of the context and Subnet.
 *
 * Guarantees: reads only; one hop per object in data-flow order; a binding that refuses names,
 * through `causes`, the hops its reason points at (NetworkBinding reasons, apis.md §1.3).
 * Caveat: interfaces are per claim, so a binding trace ends at the cell copies; `trace claim`
 * follows one claim down to its interface.
 */
import { CLUSTER_LOCATION_LABEL } from '../apis/common/labels.ts';
import type { Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import { NetworkBindingReason, type NetworkBinding } from '../apis/networking/v1alpha/network-binding.ts';
import { networkContextName } from '../apis/networking/v1alpha/network-context.ts';
import { ipv6SubnetName } from '../apis/networking/v1alpha/subnet.ts';
import { advice } from './advice.ts';
import { cellContextHop, cellSubnetHop, clusterHop } from './cell-hops.ts';
import { HUB_CONTEXT } from './contexts.ts';
import { conditionOf, qualified, shown, stateOf, type Hop, type HopId } from './hop.ts';
import { presenceHops, type Presence } from './presence-hops.ts';
import { probeGet, probeList } from './probe.ts';
import { Kinds, type PlaneReader } from './reader.ts';

export interface BindingRef {
  namespace: string;
  name: string;
}

/** The hops each binding reason points at, looked at in this order. */
export const bindingReasonCauses: Record<string, HopId[]> = {
  [NetworkBindingReason.ProjectUnresolved]: ['hub-namespace', 'project', 'project-namespace'],
  [NetworkBindingReason.NetworkNotFound]: ['network'],
  [NetworkBindingReason.LocationNotAvailable]: ['location-binding'],
  [NetworkBindingReason.NetworkContextNameConflict]: ['project-context'],
  [NetworkBindingReason.NetworkContextNotReady]: ['project-namespace', 'network', 'project-context'],
};

export async function traceBinding(reader: PlaneReader, ref: BindingRef): Promise<Hop[]> {
  const found = await probeGet<NetworkBinding>(
    reader,
    HUB_CONTEXT,
    Kinds.networkBinding,
    ref.name,
    ref.namespace,
  );
  const object = `NetworkBinding ${qualified(ref.name, ref.namespace)}`;
  if (!found.found) {
    const hop: Hop = {
      id: 'binding',
      plane: HUB_CONTEXT,
      object,
      state: 'unreachable',
      note: found.unreachable,
    };
    return [{ ...hop, advice: advice.planeUnreadable(HUB_CONTEXT) }];
  }
  const binding = found.value;
  if (!binding) {
    const hop: Hop = { id: 'binding', plane: HUB_CONTEXT, object, state: 'missing' };
    return [{ ...hop, advice: advice.bindingMissing(ref.namespace, ref.name) }];
  }
  const pair = {
    hubNamespace: ref.namespace,
    network: binding.spec.network.name,
    location: binding.spec.location.name,
  };
  const presence = await presenceHops(reader, pair, { networkNamespace: binding.spec.network.namespace });
  return [bindingHop(binding, object), ...presence.hops, ...(await cellHops(reader, pair, presence))];
}

/** The binding as the presence controller last reported it. */
export function bindingHop(binding: NetworkBinding, object: string): Hop {
  const ready = conditionOf(binding, 'Ready');
  const hop: Hop = {
    id: 'binding',
    plane: HUB_CONTEXT,
    object,
    state: stateOf(ready),
    condition: shown(ready),
  };
  if (hop.state === 'ok') return hop;
  const reason = ready?.reason ?? NetworkBindingReason.Pending;
  if (reason === NetworkBindingReason.Pending) return { ...hop, advice: advice.bindingPending };
  return { ...hop, causes: bindingReasonCauses[reason] ?? [], advice: advice.bindingStale(reason) };
}

async function cellHops(
  reader: PlaneReader,
  pair: { hubNamespace: string; network: string; location: string },
  presence: Presence,
): Promise<Hop[]> {
  if (!presence.hubContext) return [];
  const selector = `${CLUSTER_LOCATION_LABEL}=${pair.location}`;
  const clusters = await probeList<Cluster>(reader, HUB_CONTEXT, Kinds.cluster, { labelSelector: selector });
  const cellsHop: Hop = { id: 'cells', plane: HUB_CONTEXT, object: `Cluster -l ${selector}`, state: 'ok' };
  if (!clusters.found) return [{ ...cellsHop, state: 'unreachable', note: clusters.unreachable }];
  if (clusters.value.length === 0)
    return [{ ...cellsHop, state: 'missing', advice: advice.noCells(pair.location) }];
  const context = networkContextName(pair.network, pair.location);
  const hops: Hop[] = [];
  for (const cluster of clusters.value) {
    const name = cluster.metadata.name ?? '';
    hops.push((await clusterHop(reader, name, pair.location)).hop);
    const demand = { network: pair.network, location: pair.location };
    const copy = await cellContextHop(reader, name, pair.hubNamespace, context, presence.hubContext, demand);
    hops.push(copy.hop);
    if (presence.subnetExpected) {
      const subnet = ipv6SubnetName(context);
      hops.push(
        await cellSubnetHop(reader, name, pair.hubNamespace, subnet, presence.hubSubnet, pair.location),
      );
    }
  }
  return hops;
}
