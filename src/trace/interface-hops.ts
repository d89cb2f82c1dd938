/**
 * The hops at the bottom of a claim: its addresses in IPAM, the NetworkInterface it binds, and the
 * claim itself (controllers.md §10).
 *
 * Guarantees: an existing interface is judged by the claim controller's adoption rules, in its
 * order (held by another claim, network, device name, families, classes, reclaim policy), with
 * its messages; addresses by the IPClaim behind each one (present, same CIDR); the claim by its
 * `Ready`, where `NotPrepared` and `NotProgrammed` — the data plane's conditions — count as done.
 */
import {
  addressClaimName,
  classDiscriminator,
  familyDiscriminator,
  legacyAddressClaimName,
} from '../apis/ipam/v1alpha1/ip-claim.ts';
import type { IPClaim } from '../apis/ipam/v1alpha1/ip-claim.ts';
import { ClaimReason, claimRefusalMessages } from '../apis/networking/v1alpha/claim-refusals.ts';
import { IpamFailureReason } from '../apis/networking/v1alpha/ipam-failures.ts';
import type { NetworkInterfaceClaim } from '../apis/networking/v1alpha/network-interface-claim.ts';
import {
  ALLOCATION_CLAIM_ANNOTATION,
  DEFAULT_INTERFACE_NAME,
  type NetworkInterface,
} from '../apis/networking/v1alpha/network-interface.ts';
import { advice, ipamAdvice } from './advice.ts';
import { cellPlaneContext, projectContext } from './contexts.ts';
import { conditionOf, qualified, shown, stateOf, type Hop, type HopId, type Route } from './hop.ts';
import { notes } from './notes.ts';
import { probeGet } from './probe.ts';
import { Kinds, type PlaneReader } from './reader.ts';

const IPAM_REFUSALS: readonly string[] = [
  IpamFailureReason.AddressPoolExhausted,
  IpamFailureReason.RetainedAddressConflict,
  IpamFailureReason.AddressAllocationRejected,
  IpamFailureReason.AllocationFailed,
];

const NETWORK_REACH: HopId[] = [
  'binding',
  'hub-namespace',
  'project',
  'project-namespace',
  'location-binding',
  'network',
  'project-context',
  'hub-context',
  'policy',
  'cluster',
  'cell-namespace',
  'cell-context',
];

/** The hops each claim reason points at, looked at in this order (apis.md §1.9). */
export const claimReasonCauses: Record<string, HopId[]> = {
  [ClaimReason.NoLocationIdentity]: ['cluster', 'policy', 'identity'],
  [ClaimReason.AmbiguousLocationIdentity]: ['identity', 'cluster'],
  [ClaimReason.ProjectUnresolved]: ['cell-namespace'],
  [ClaimReason.ProjectNamespaceNotFound]: ['project-namespace', 'addresses'],
  [ClaimReason.NetworkNotAvailableInLocation]: NETWORK_REACH,
  [ClaimReason.AddressFamiliesUnknown]: ['cell-context', 'project-context'],
  [ClaimReason.AddressFamilyNotCarried]: ['network', 'cell-context'],
  [ClaimReason.InterfaceHeldByAnotherClaim]: ['interface'],
  [ClaimReason.NetworkMismatch]: ['interface'],
  [ClaimReason.InterfaceNameMismatch]: ['interface'],
  [ClaimReason.AddressFamilyMissing]: ['interface'],
  [ClaimReason.AddressClassMissing]: ['interface'],
  [ClaimReason.ReclaimPolicyMismatch]: ['interface'],
  [ClaimReason.SubnetGatewayUnusable]: ['cell-subnet'],
  [ClaimReason.AddressPoolExhausted]: ['addresses'],
  [ClaimReason.RetainedAddressConflict]: ['addresses'],
  [ClaimReason.AddressAllocationRejected]: ['addresses'],
  [ClaimReason.AllocationFailed]: ['addresses'],
  [ClaimReason.AddressAllocationMissing]: ['addresses'],
  [ClaimReason.NotBound]: ['interface', 'addresses'],
  [ClaimReason.NotAllocated]: ['addresses', 'interface'],
};

const DATA_PLANE_REASONS: readonly string[] = [ClaimReason.NotPrepared, ClaimReason.NotProgrammed];

export const interfaceNotes = {
  notAttempted: 'nothing is allocated before the claim passes the hops above',
  noAllocation: (address: string, project: string) =>
    `Address ${address} is held by no allocation in project "${project}"`,
  otherAllocation: (address: string, ipClaim: string, cidr: string) =>
    `Address ${address} is published, but allocation "${ipClaim}" holds ${cidr}`,
  allocated: (count: number) => `${count} address${count === 1 ? '' : 'es'}, each held in IPAM`,
};

/** The name of the interface `claim` binds. */
export function interfaceNameOf(claim: NetworkInterfaceClaim): string {
  return claim.spec.networkInterfaceName ?? claim.metadata.name ?? '';
}

export async function interfaceHop(
  reader: PlaneReader,
  cluster: string,
  claim: NetworkInterfaceClaim,
): Promise<{ hop: Hop; object?: NetworkInterface }> {
  const plane = cellPlaneContext(cluster);
  const name = interfaceNameOf(claim);
  const namespace = claim.metadata.namespace ?? '';
  const hop: Hop = {
    id: 'interface',
    plane,
    object: `NetworkInterface ${qualified(name, namespace)}`,
    state: 'ok',
  };
  const found = await probeGet<NetworkInterface>(reader, plane, Kinds.networkInterface, name, namespace);
  if (!found.found) return { hop: { ...hop, state: 'unreachable', note: found.unreachable } };
  const iface = found.value;
  if (!iface) return { hop: { ...hop, state: 'missing', advice: advice.interfaceMissing(cluster) } };
  const refusal = adoptionRefusal(iface, claim);
  if (refusal) return { hop: { ...hop, state: 'refusing', ...refusal }, object: iface };
  const programmed = conditionOf(iface, 'Programmed');
  const note =
    programmed?.status === 'True'
      ? undefined
      : programmed?.status === 'False'
        ? notes.dataPlaneRefused(programmed.reason, programmed.message)
        : notes.dataPlane(`Programmed=${programmed?.status ?? '?'}`);
  return {
    hop: { ...hop, condition: shown(conditionOf(iface, 'Allocated')), ...(note && { note }) },
    object: iface,
  };
}

/** Why `claim` cannot bind `iface`, in the claim controller's order (§10 step 8). */
function adoptionRefusal(
  iface: NetworkInterface,
  claim: NetworkInterfaceClaim,
): { note: string; advice: string } | undefined {
  const name = iface.metadata.name ?? '';
  const holder = iface.spec.claimRef?.name;
  if (holder && holder !== claim.metadata.name)
    return {
      note: claimRefusalMessages.heldByAnotherClaim(name, holder),
      advice: advice.interfaceHeld(holder),
    };
  const incompatible = (note: string) => ({ note, advice: advice.interfaceIncompatible(name) });
  const network = claim.spec.network.name;
  if (iface.spec.network.name !== network)
    return incompatible(claimRefusalMessages.networkMismatch(name, iface.spec.network.name, network));
  const presented = iface.spec.interfaceName ?? DEFAULT_INTERFACE_NAME;
  const asked = claim.spec.interfaceName ?? DEFAULT_INTERFACE_NAME;
  if (presented !== asked)
    return incompatible(claimRefusalMessages.interfaceNameMismatch(name, presented, asked));
  const held = new Set((iface.spec.addresses ?? []).map((address) => address.family));
  const family = (claim.spec.ipFamilies ?? ['IPv6']).find((wanted) => !held.has(wanted));
  if (family) return incompatible(claimRefusalMessages.familyMissing(name, family));
  const classes = new Set((iface.spec.externalAddresses ?? []).map((address) => address.class));
  const addressClass = (claim.spec.addresses ?? []).find((wanted) => !classes.has(wanted.class));
  if (addressClass) return incompatible(claimRefusalMessages.classMissing(name, addressClass.class));
  const heldPolicy = iface.spec.reclaimPolicy ?? 'Delete';
  const requested = claim.spec.reclaimPolicy ?? 'Delete';
  if (heldPolicy !== requested)
    return incompatible(claimRefusalMessages.reclaimPolicyMismatch(name, heldPolicy, requested));
  return undefined;
}

/** The IPAM allocations behind the claim's addresses, in the project plane. */
export async function addressesHop(
  reader: PlaneReader,
  cluster: string,
  route: Route | undefined,
  claim: NetworkInterfaceClaim,
  iface: NetworkInterface | undefined,
): Promise<Hop> {
  const ready = conditionOf(claim, 'Ready');
  const plane = route ? projectContext(route.project) : '?';
  const owner = iface
    ? (iface.metadata.annotations?.[ALLOCATION_CLAIM_ANNOTATION] ??
      iface.spec.claimRef?.name ??
      iface.metadata.name ??
      '')
    : (claim.metadata.name ?? '');
  const hop: Hop = {
    id: 'addresses',
    plane,
    object: `IPClaim ${qualified(`${owner}.${cluster}-*`, route?.projectNamespace)}`,
    state: 'ok',
  };
  if (ready?.status === 'False' && IPAM_REFUSALS.includes(ready.reason))
    return {
      ...hop,
      state: 'refusing',
      condition: shown(ready),
      advice: ipamAdvice(ready.reason, route?.project ?? '?'),
    };
  if (ready?.status === 'False' && ready.reason === ClaimReason.ProjectNamespaceNotFound && route) {
    const fix = advice.projectNamespaceMissing(route.project, route.projectNamespace);
    return { ...hop, state: 'refusing', condition: shown(ready), advice: fix };
  }
  if (!iface) {
    const judged = ready === undefined || ready.reason === ClaimReason.Pending;
    if (judged) return { ...hop, state: 'waiting', advice: advice.addressesWaiting(cluster) };
    return { ...hop, state: 'unchecked', note: interfaceNotes.notAttempted };
  }
  if (!route) return { ...hop, state: 'unchecked', note: notes.missingAbove('the project') };
  const wanted = [
    ...(iface.spec.addresses ?? []).map((a) => ({
      address: a.address,
      discriminator: familyDiscriminator(a.family),
    })),
    ...(iface.spec.externalAddresses ?? []).map((a) => ({
      address: a.address,
      discriminator: classDiscriminator(a.class),
    })),
  ];
  for (const { address, discriminator } of wanted) {
    const holds = (cidr: string | undefined) =>
      cidr !== undefined && (cidr === address || cidr.split('/')[0] === address);
    let name = addressClaimName(owner, cluster, discriminator);
    let found = await probeGet<IPClaim>(reader, plane, Kinds.ipClaim, name, route.projectNamespace);
    if (found.found && !found.value) {
      // An interface minted before IPClaims named the cell keeps the IPClaim of its address.
      const legacyName = legacyAddressClaimName(owner, discriminator);
      const legacy = await probeGet<IPClaim>(
        reader,
        plane,
        Kinds.ipClaim,
        legacyName,
        route.projectNamespace,
      );
      if (legacy.found && holds(legacy.value?.status?.allocatedCIDR)) [name, found] = [legacyName, legacy];
    }
    if (!found.found) return { ...hop, state: 'unreachable', note: found.unreachable };
    const cidr = found.value?.status?.allocatedCIDR;
    const held = holds(cidr);
    if (!held) {
      const note = found.value
        ? interfaceNotes.otherAllocation(address, name, cidr ?? '')
        : interfaceNotes.noAllocation(address, route.project);
      return {
        ...hop,
        state: 'refusing',
        note,
        advice: advice.addressAllocationMissing(iface.metadata.name ?? ''),
      };
    }
  }
  return { ...hop, note: interfaceNotes.allocated(wanted.length) };
}

/** The claim as the claim controller last reported it. */
export function claimHop(cluster: string, claim: NetworkInterfaceClaim): Hop {
  const ready = conditionOf(claim, 'Ready');
  const object = `NetworkInterfaceClaim ${qualified(claim.metadata.name ?? '', claim.metadata.namespace)}`;
  const hop: Hop = {
    id: 'claim',
    plane: cellPlaneContext(cluster),
    object,
    state: stateOf(ready),
    condition: shown(ready),
  };
  if (hop.state === 'ok') return hop;
  const reason = ready?.reason ?? ClaimReason.Pending;
  if (DATA_PLANE_REASONS.includes(reason)) return { ...hop, state: 'ok', note: notes.dataPlane(reason) };
  if (reason === ClaimReason.Pending) return { ...hop, advice: advice.claimPending(cluster) };
  return { ...hop, causes: claimReasonCauses[reason] ?? [], advice: advice.claimStale(reason, cluster) };
}
