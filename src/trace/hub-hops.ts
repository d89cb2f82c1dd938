/**
 * The hops of a network on the hub below the project plane: the hub copies of the project
 * context and Subnet, and the location's policy `location-<loc>` (controllers.md §6, §7;
 * propagation.md §1.1).
 *
 * Guarantees: a hub copy is judged by presence, by the location label the policy selects it by,
 * and by a spec equal to its source; the policy by presence and by the permanent-id label a
 * propagation engine adds when it takes the policy up. A copy whose source is missing is not
 * looked at.
 */
import { jsonEqual } from '../apis/common/json-equal.ts';
import { LOCATION_LABEL } from '../apis/common/labels.ts';
import { networkContextName, type NetworkContext } from '../apis/networking/v1alpha/network-context.ts';
import { locationPolicyName } from '../apis/networking/v1alpha/serving-location.ts';
import { ipv6SubnetName, type Subnet } from '../apis/networking/v1alpha/subnet.ts';
import {
  CPP_PERMANENT_ID_LABEL,
  type ClusterPropagationPolicy,
} from '../apis/policy/v1alpha1/cluster-propagation-policy.ts';
import type { KubeObject } from '../client/types.ts';
import { advice } from './advice.ts';
import { HUB_CONTEXT } from './contexts.ts';
import { qualified, unchecked, type Hop, type Pair } from './hop.ts';
import { notes } from './notes.ts';
import { probeGet } from './probe.ts';
import { Kinds, type PlaneReader } from './reader.ts';

/** The hub copies of `source` (and of its Subnet, when one is expected), then the policy. */
export async function hubHops(
  reader: PlaneReader,
  pair: Pair,
  source: NetworkContext | undefined,
  subnetExpected: boolean,
  sourceSubnet?: Subnet,
): Promise<{ hops: Hop[]; copies: { hubContext?: NetworkContext; hubSubnet?: Subnet } }> {
  const context = networkContextName(pair.network, pair.location);
  const hops: Hop[] = [];
  const copies: { hubContext?: NetworkContext; hubSubnet?: Subnet } = {};
  if (source) {
    const copy = await hubCopyHop<NetworkContext>(
      reader,
      'hub-context',
      pair,
      'NetworkContext',
      context,
      source,
    );
    hops.push(copy.hop);
    copies.hubContext = copy.object;
    if (subnetExpected) {
      const subnetCopy = await hubCopyHop<Subnet>(
        reader,
        'hub-subnet',
        pair,
        'Subnet',
        ipv6SubnetName(context),
        sourceSubnet,
      );
      hops.push(subnetCopy.hop);
      copies.hubSubnet = subnetCopy.object;
    }
  } else {
    hops.push(
      unchecked(
        'hub-context',
        HUB_CONTEXT,
        `NetworkContext ${qualified(context, pair.hubNamespace)}`,
        notes.missingAbove('the project context'),
      ),
    );
  }
  hops.push(await policyHop(reader, pair.location));
  return { hops, copies };
}

async function hubCopyHop<T extends KubeObject & { spec?: unknown }>(
  reader: PlaneReader,
  id: 'hub-context' | 'hub-subnet',
  pair: Pair,
  kind: string,
  name: string,
  source: T | undefined,
): Promise<{ hop: Hop; object?: T }> {
  const hop: Hop = {
    id,
    plane: HUB_CONTEXT,
    object: `${kind} ${qualified(name, pair.hubNamespace)}`,
    state: 'ok',
  };
  const resource = id === 'hub-context' ? Kinds.networkContext : Kinds.subnet;
  const found = await probeGet<T>(reader, HUB_CONTEXT, resource, name, pair.hubNamespace);
  if (!found.found) return { hop: { ...hop, state: 'unreachable', note: found.unreachable } };
  const copy = found.value;
  if (!copy) return { hop: { ...hop, state: 'missing', advice: advice.copyMissing } };
  if (copy.metadata.labels?.[LOCATION_LABEL] !== pair.location)
    return { hop: { ...hop, state: 'refusing', advice: advice.copyUnlabelled(pair.location) }, object: copy };
  if (source && !jsonEqual(copy.spec, source.spec))
    return { hop: { ...hop, state: 'waiting', note: notes.stale, advice: advice.copyStale }, object: copy };
  return { hop, object: copy };
}

async function policyHop(reader: PlaneReader, location: string): Promise<Hop> {
  const name = locationPolicyName(location);
  const hop: Hop = {
    id: 'policy',
    plane: HUB_CONTEXT,
    object: `ClusterPropagationPolicy ${name}`,
    state: 'ok',
  };
  const found = await probeGet<ClusterPropagationPolicy>(
    reader,
    HUB_CONTEXT,
    Kinds.clusterPropagationPolicy,
    name,
  );
  if (!found.found) return { ...hop, state: 'unreachable', note: found.unreachable };
  if (!found.value) return { ...hop, state: 'missing', advice: advice.policyMissing(location) };
  if (!found.value.metadata.labels?.[CPP_PERMANENT_ID_LABEL])
    return { ...hop, state: 'waiting', note: notes.noPermanentId, advice: advice.policyUnclaimed(location) };
  return hop;
}
