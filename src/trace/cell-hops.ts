/**
 * The hops of one cell: its Cluster on the hub, the location it knows it serves, its copy of the
 * hub namespace, and its copies of the network context and Subnet (DESIGN.md §1, propagation.md
 * §1.2, controllers.md §9–§10).
 *
 * Guarantees: a Cluster is judged by its location label and `Ready`, as placement judges it; a
 * cell copy by presence and a spec equal to the hub copy, and — for a claim — by the families it
 * states and the gateway its Subnet yields, exactly as the claim controller judges them.
 */
import { jsonEqual } from '../apis/common/json-equal.ts';
import type { Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import { CLUSTER_LOCATION_LABEL } from '../apis/common/labels.ts';
import {
  claimRefusalMessages,
  gatewayMessages,
  identityMessages,
} from '../apis/networking/v1alpha/claim-refusals.ts';
import type { NetworkContext } from '../apis/networking/v1alpha/network-context.ts';
import type { ServingLocation } from '../apis/networking/v1alpha/serving-location.ts';
import type { Subnet } from '../apis/networking/v1alpha/subnet.ts';
import { routeNamespace } from '../controllers/shared/hub-routing.ts';
import { bitsOf, parseAddress } from '../ipam/cidr.ts';
import { advice } from './advice.ts';
import { cellPlaneContext, HUB_CONTEXT } from './contexts.ts';
import { conditionOf, isTrue, qualified, shown, type Hop, type Route } from './hop.ts';
import { notes } from './notes.ts';
import { probeGet, probeList } from './probe.ts';
import { Kinds, type PlaneReader } from './reader.ts';

export const cellNotes = {
  servesOther: (location: string) => `${CLUSTER_LOCATION_LABEL}=${location}`,
  pullMode: 'syncMode Pull: the engine schedules it but never applies to it',
  delivered: (names: string[]) => `ServingLocations delivered: ${names.join(', ') || 'none'}`,
};

/** The Cluster `cluster` on the hub, judged for serving `location` (undefined: any location). */
export async function clusterHop(
  reader: PlaneReader,
  cluster: string,
  location: string | undefined,
): Promise<{ hop: Hop; object?: Cluster }> {
  const hop: Hop = { id: 'cluster', plane: HUB_CONTEXT, object: `Cluster ${cluster}`, state: 'ok' };
  const found = await probeGet<Cluster>(reader, HUB_CONTEXT, Kinds.cluster, cluster);
  if (!found.found) return { hop: { ...hop, state: 'unreachable', note: found.unreachable } };
  const object = found.value;
  if (!object) return { hop: { ...hop, state: 'missing', advice: advice.clusterMissing(cluster) } };
  const served = object.metadata.labels?.[CLUSTER_LOCATION_LABEL];
  const ready = conditionOf(object, 'Ready');
  const judged: Hop = {
    ...hop,
    condition: shown(ready),
    ...(served && { note: cellNotes.servesOther(served) }),
  };
  if (!served || (location !== undefined && served !== location)) {
    const fix = location ? advice.clusterUnlabelled(cluster, location) : advice.clusterNoLocation(cluster);
    return { hop: { ...judged, state: 'refusing', advice: fix }, object };
  }
  if (!isTrue(ready))
    return { hop: { ...judged, state: 'refusing', advice: advice.clusterNotReady(cluster) }, object };
  if (object.spec.syncMode === 'Pull') return { hop: { ...judged, note: cellNotes.pullMode }, object };
  return { hop: judged, object };
}

/** The location cell `cluster` resolves from the ServingLocations delivered to it (§9). */
export async function identityHop(
  reader: PlaneReader,
  cluster: string,
  expected: string | undefined,
): Promise<{ hop: Hop; location?: string }> {
  const plane = cellPlaneContext(cluster);
  const hop: Hop = { id: 'identity', plane, object: 'ServingLocation', state: 'ok' };
  const found = await probeList<ServingLocation>(reader, plane, Kinds.servingLocation);
  if (!found.found)
    return {
      hop: { ...hop, state: 'unreachable', note: found.unreachable, advice: advice.planeUnreadable(plane) },
    };
  const names = found.value.map((serving) => serving.metadata.name ?? '');
  if (names.length === 1)
    return { hop: { ...hop, object: `ServingLocation ${names[0]}` }, location: names[0] };
  if (names.length > 1) {
    return {
      hop: {
        ...hop,
        state: 'refusing',
        note: `${identityMessages.ambiguous(names.length)} (${names.join(', ')})`,
        advice: advice.ambiguousIdentity(cluster),
      },
    };
  }
  const missing: Hop = {
    ...hop,
    object: `ServingLocation ${expected ?? '?'}`,
    state: 'missing',
    note: identityMessages.none,
  };
  return {
    hop: {
      ...missing,
      advice: expected ? advice.noIdentity(cluster, expected) : advice.clusterNoLocation(cluster),
    },
  };
}

/** The cell's copy of the hub namespace, and the project it routes to (§1.1). */
export async function cellNamespaceHop(
  reader: PlaneReader,
  cluster: string,
  namespace: string,
): Promise<{ hop: Hop; route?: Route }> {
  const plane = cellPlaneContext(cluster);
  const hop: Hop = { id: 'cell-namespace', plane, object: `Namespace ${namespace}`, state: 'ok' };
  const found = await probeGet(reader, plane, Kinds.namespace, namespace);
  if (!found.found) return { hop: { ...hop, state: 'unreachable', note: found.unreachable } };
  const route = routeNamespace(namespace, found.value);
  if (!route.resolved) {
    return {
      hop: {
        ...hop,
        state: found.value ? 'refusing' : 'missing',
        note: route.message,
        advice: advice.cellNamespaceUnlabelled(namespace, cluster),
      },
    };
  }
  const resolved = { project: route.project, projectNamespace: route.projectNamespace };
  return { hop: { ...hop, note: notes.routesTo(resolved) }, route: resolved };
}

export interface CellCopyDemand {
  network: string;
  location: string;
  /** Families a claim requests, checked against the context copy. */
  families?: string[];
}

/** Cell `cluster`'s copy of the hub NetworkContext `name` in `namespace`. */
export async function cellContextHop(
  reader: PlaneReader,
  cluster: string,
  namespace: string,
  name: string,
  hubCopy: NetworkContext | undefined,
  demand: CellCopyDemand,
): Promise<{ hop: Hop; object?: NetworkContext }> {
  const plane = cellPlaneContext(cluster);
  const hop: Hop = {
    id: 'cell-context',
    plane,
    object: `NetworkContext ${qualified(name, namespace)}`,
    state: 'ok',
  };
  const found = await probeGet<NetworkContext>(reader, plane, Kinds.networkContext, name, namespace);
  if (!found.found)
    return {
      hop: { ...hop, state: 'unreachable', note: found.unreachable, advice: advice.planeUnreadable(plane) },
    };
  const copy = found.value;
  if (!copy) {
    const note = claimRefusalMessages.networkNotAvailable(demand.network, demand.location, name, namespace);
    return {
      hop: { ...hop, state: 'missing', note, advice: advice.cellCopyMissing(cluster, demand.location) },
    };
  }
  if (hubCopy && !jsonEqual(copy.spec, hubCopy.spec))
    return {
      hop: { ...hop, state: 'waiting', note: notes.stale, advice: advice.cellCopyStale(cluster) },
      object: copy,
    };
  const carried = copy.spec.ipFamilies ?? [];
  if (demand.families && carried.length === 0) {
    return {
      hop: {
        ...hop,
        state: 'refusing',
        note: claimRefusalMessages.familiesUnknown(name, demand.network, demand.location),
        advice: advice.familiesUnknown(name),
      },
      object: copy,
    };
  }
  const lacking = demand.families?.find((family) => !carried.includes(family as 'IPv4' | 'IPv6'));
  if (lacking) {
    return {
      hop: {
        ...hop,
        state: 'refusing',
        note: claimRefusalMessages.familyNotCarried(demand.network, demand.location, lacking),
        advice: advice.familyNotCarriedHere(name, lacking),
      },
      object: copy,
    };
  }
  return { hop: { ...hop, note: notes.familiesCarried(carried) }, object: copy };
}

/** Cell `cluster`'s copy of the hub Subnet `name`; `gatewayFamily` applies the gateway rule. */
export async function cellSubnetHop(
  reader: PlaneReader,
  cluster: string,
  namespace: string,
  name: string,
  hubCopy: Subnet | undefined,
  location: string,
  gatewayFamily?: 'IPv4' | 'IPv6',
): Promise<Hop> {
  const plane = cellPlaneContext(cluster);
  const hop: Hop = { id: 'cell-subnet', plane, object: `Subnet ${qualified(name, namespace)}`, state: 'ok' };
  const found = await probeGet<Subnet>(reader, plane, Kinds.subnet, name, namespace);
  if (!found.found) return { ...hop, state: 'unreachable', note: found.unreachable };
  const copy = found.value;
  if (!copy) return { ...hop, state: 'missing', advice: advice.cellCopyMissing(cluster, location) };
  if (hubCopy && !jsonEqual(copy.spec, hubCopy.spec))
    return { ...hop, state: 'waiting', note: notes.stale, advice: advice.cellCopyStale(cluster) };
  const problem = gatewayFamily && gatewayProblem(copy, gatewayFamily);
  if (problem) return { ...hop, state: 'refusing', note: problem, advice: advice.gateway(name) };
  // A copy's status is the seed (propagation never carries status): only the source's counts.
  return hop;
}

/** Why `subnet` yields no gateway for `family` (the gateway rule, controllers.md §10), if it does not. */
export function gatewayProblem(subnet: Subnet, family: 'IPv4' | 'IPv6'): string | undefined {
  const name = subnet.metadata.name ?? '';
  const status = subnet.status ?? {};
  const start = 'startAddress' in status ? (status.startAddress ?? '') : subnet.spec.startAddress;
  const prefixLength = 'prefixLength' in status ? (status.prefixLength ?? -1) : subnet.spec.prefixLength;
  const parsed = parseAddress(start);
  if (!parsed) return gatewayMessages.noStartAddress(name, family);
  if (parsed.family !== family) return gatewayMessages.wrongFamily(name, family, start);
  const bits = bitsOf(family);
  const unusable = gatewayMessages.noAddressAfterStart(name, family, start, prefixLength);
  if (!Number.isInteger(prefixLength) || prefixLength < 0 || prefixLength > bits) return unusable;
  const hostBits = BigInt(bits - prefixLength);
  const last = ((parsed.address >> hostBits) << hostBits) | ((1n << hostBits) - 1n);
  return parsed.address + 1n > last ? unusable : undefined;
}
