/**
 * `traceClaim`: the hops of one NetworkInterfaceClaim in a cell, in data-flow order — the
 * NetworkBinding declaring its network in the cell's location, the presence hops above the cells
 * (presence-hops.ts), the cell's Cluster and location, its namespace, its copies of the context
 * and Subnet, the claim's addresses, its interface and the claim itself — then the interface's
 * hub and project copies (interface-copy-hops.ts), views that never fail the claim.
 *
 * Guarantees: reads only. The location is the one ServingLocation delivered to the cell, else the
 * Cluster's `topology.datum.net/location` label; a cell whose claim was judged by a reason other
 * than a missing identity is taken to have a configured location. The binding hop is the first
 * NetworkBinding in the claim's namespace (the hub namespace it is a copy of) for the pair that is
 * Ready, else the first by name. A claim that refuses names, through `causes`, the hops its
 * reason points at (interface-hops.ts).
 */
import { CLUSTER_LOCATION_LABEL } from '../apis/common/labels.ts';
import { ClaimReason } from '../apis/networking/v1alpha/claim-refusals.ts';
import type { NetworkBinding } from '../apis/networking/v1alpha/network-binding.ts';
import { networkContextName } from '../apis/networking/v1alpha/network-context.ts';
import type { NetworkInterfaceClaim } from '../apis/networking/v1alpha/network-interface-claim.ts';
import { ipv6SubnetName } from '../apis/networking/v1alpha/subnet.ts';
import { advice } from './advice.ts';
import { bindingHop } from './binding.ts';
import { cellContextHop, cellNamespaceHop, cellSubnetHop, clusterHop, identityHop } from './cell-hops.ts';
import { cellPlaneContext, HUB_CONTEXT } from './contexts.ts';
import { conditionOf, isTrue, qualified, unchecked, type Hop, type Pair } from './hop.ts';
import { interfaceCopyHops } from './interface-copy-hops.ts';
import { addressesHop, claimHop, interfaceHop } from './interface-hops.ts';
import { presenceHops } from './presence-hops.ts';
import { probeGet, probeList } from './probe.ts';
import { Kinds, type PlaneReader } from './reader.ts';

export interface ClaimRef {
  cell: string;
  namespace: string;
  name: string;
}

export const claimNotes = {
  configuredLocation:
    'no ServingLocation delivered; the cell judged the claim, so it runs with a configured --location',
  locationUnknown: 'the location the cell serves is unknown',
};

const IDENTITY_REASONS: readonly string[] = [
  ClaimReason.NoLocationIdentity,
  ClaimReason.AmbiguousLocationIdentity,
];

export async function traceClaim(reader: PlaneReader, ref: ClaimRef): Promise<Hop[]> {
  const plane = cellPlaneContext(ref.cell);
  const object = `NetworkInterfaceClaim ${qualified(ref.name, ref.namespace)}`;
  const found = await probeGet<NetworkInterfaceClaim>(
    reader,
    plane,
    Kinds.networkInterfaceClaim,
    ref.name,
    ref.namespace,
  );
  if (!found.found)
    return [
      {
        id: 'claim',
        plane,
        object,
        state: 'unreachable',
        note: found.unreachable,
        advice: advice.planeUnreadable(plane),
      },
    ];
  const claim = found.value;
  if (!claim)
    return [
      {
        id: 'claim',
        plane,
        object,
        state: 'missing',
        advice: advice.claimMissing(ref.cell, ref.namespace, ref.name),
      },
    ];

  const { cluster, identity, location } = await cellLocation(reader, ref.cell, claim);
  const namespace = await cellNamespaceHop(reader, ref.cell, ref.namespace);
  const network = claim.spec.network.name;
  const families = claim.spec.ipFamilies ?? ['IPv6'];

  if (!location) {
    const why = claimNotes.locationUnknown;
    const located = await interfaceHop(reader, ref.cell, claim);
    return [
      unchecked('binding', HUB_CONTEXT, `NetworkBinding ${ref.namespace}/? for network ${network}`, why),
      cluster,
      identity,
      namespace.hop,
      unchecked('cell-context', plane, `NetworkContext ${network}-?`, why),
      located.hop,
      claimHop(ref.cell, claim),
      ...(await interfaceCopyHops(reader, ref.cell, ref.namespace, located.object, namespace.route)),
    ];
  }

  const pair: Pair = { hubNamespace: ref.namespace, network, location };
  const presence = await presenceHops(reader, pair, { families });
  const context = networkContextName(network, location);
  const demand = { network, location, families };
  const copy = await cellContextHop(reader, ref.cell, ref.namespace, context, presence.hubContext, demand);
  const subnet = presence.subnetExpected
    ? [
        await cellSubnetHop(
          reader,
          ref.cell,
          ref.namespace,
          ipv6SubnetName(context),
          presence.hubSubnet,
          location,
          families.includes('IPv6') ? 'IPv6' : undefined,
        ),
      ]
    : [];
  const iface = await interfaceHop(reader, ref.cell, claim);
  const route = presence.route ?? namespace.route;
  return [
    await bindingFor(reader, pair),
    ...presence.hops,
    cluster,
    identity,
    namespace.hop,
    copy.hop,
    ...subnet,
    await addressesHop(reader, ref.cell, route, claim, iface.object),
    iface.hop,
    claimHop(ref.cell, claim),
    ...(await interfaceCopyHops(reader, ref.cell, ref.namespace, iface.object, route)),
  ];
}

/**
 * The location cell `cell` serves, with its Cluster and identity hops: the one ServingLocation
 * delivered, else the Cluster's label. A missing ServingLocation is not held against a cell whose
 * claim was judged for another reason: that cell runs with a configured `--location`.
 */
async function cellLocation(
  reader: PlaneReader,
  cell: string,
  claim: NetworkInterfaceClaim,
): Promise<{ cluster: Hop; identity: Hop; location?: string }> {
  const labelled = await clusterHop(reader, cell, undefined);
  const label = labelled.object?.metadata.labels?.[CLUSTER_LOCATION_LABEL];
  const identity = await identityHop(reader, cell, label);
  const location = identity.location ?? label;
  const reason = conditionOf(claim, 'Ready')?.reason ?? ClaimReason.Pending;
  const configured =
    identity.hop.state === 'missing' &&
    label !== undefined &&
    reason !== ClaimReason.Pending &&
    !IDENTITY_REASONS.includes(reason);
  const identityHopFound = configured
    ? { ...identity.hop, state: 'ok' as const, note: claimNotes.configuredLocation, advice: undefined }
    : identity.hop;
  const cluster = location ? (await clusterHop(reader, cell, location)).hop : labelled.hop;
  return { cluster, identity: identityHopFound, location };
}

/** The binding that declares `pair`, as its hop. */
async function bindingFor(reader: PlaneReader, pair: Pair): Promise<Hop> {
  const object = `NetworkBinding ${pair.hubNamespace}/* for network ${pair.network} in ${pair.location}`;
  const found = await probeList<NetworkBinding>(reader, HUB_CONTEXT, Kinds.networkBinding, {
    namespace: pair.hubNamespace,
  });
  if (!found.found)
    return { id: 'binding', plane: HUB_CONTEXT, object, state: 'unreachable', note: found.unreachable };
  const holders = found.value
    .filter(
      (binding) =>
        binding.spec.network.name === pair.network &&
        binding.spec.location.name === pair.location &&
        !binding.metadata.deletionTimestamp,
    )
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  if (holders.length === 0) {
    const fix = advice.noBindingForPair(pair.hubNamespace, pair.network, pair.location);
    return { id: 'binding', plane: HUB_CONTEXT, object, state: 'missing', advice: fix };
  }
  const chosen = holders.find((binding) => isTrue(conditionOf(binding, 'Ready'))) ?? holders[0];
  const hop = bindingHop(
    chosen,
    `NetworkBinding ${qualified(chosen.metadata.name ?? '', pair.hubNamespace)}`,
  );
  return holders.length > 1
    ? { ...hop, note: [hop.note, `${holders.length} bindings hold the pair`].filter(Boolean).join('; ') }
    : hop;
}
