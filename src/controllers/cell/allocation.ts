/**
 * An interface's addresses in IPAM (controllers.md §10 steps 8, 10 and "Releasing addresses"):
 * allocating all of a claim's requests or none, checking that every published address is still
 * backed by its IPClaim, and releasing an owner's IPClaims with any retained IPAllocation.
 *
 * Guarantees:
 * - every IPClaim is named after the claim and this cell (`<claim>.<cell>-<discriminator>`) and
 *   labelled with the cell, so claims of one name in two cells never share an address;
 * - `allocateAll` reads each IPClaim before creating it, so a retry (names are deterministic)
 *   reuses what an earlier attempt made; a refused create is read once more (a lost race); on any
 *   refusal it rolls back exactly the IPClaims this attempt created, and a failed rollback is
 *   logged, not thrown — the next attempt finds them by name (creating first, one request less
 *   per address, was tried: the interface then more often beats its Subnet to the cell, and the
 *   gateway rewrite that follows costs more writes than the read saves; bench/README);
 * - `checkAllocations` never reallocates; it only reports what it finds;
 * - `releaseIpClaims` tolerates what is already gone and throws every other error together;
 *   it deletes the IPAllocation named after the IPClaim even when the IPClaim is already gone,
 *   so a release killed between its two deletes is finished by the next attempt (scenario 135);
 * - an interface minted before IPClaims named the cell is still backed by its IPClaim under the
 *   old name `<claim>-<discriminator>`, but only when that IPClaim holds exactly the address the
 *   interface publishes (so another cell's IPClaim of that name is never taken for ours); it is
 *   checked and released under that name, and nothing is renamed (a rename would free the address).
 */
import type { Logger } from 'pino';
import {
  addressClaimName,
  CELL_LABEL,
  legacyAddressClaimName,
  type IPClaim,
} from '../../apis/ipam/v1alpha1/ip-claim.ts';
import { networkLocationScope } from '../../apis/ipam/v1alpha1/scope.ts';
import { ClaimReason } from '../../apis/networking/v1alpha/claim-refusals.ts';
import { ipamFailureMessages } from '../../apis/networking/v1alpha/ipam-failures.ts';
import {
  AddressAllocationMissingEvent,
  networkInterfaceMessages,
  type NetworkInterface,
  type ReclaimPolicy,
} from '../../apis/networking/v1alpha/network-interface.ts';
import { classifyIpamFailure, isProjectNamespaceMissing } from '../shared/ipam-access.ts';
import {
  allocationOwner,
  bareAddress,
  heldAddresses,
  type AddressRequest,
  type HeldAddress,
} from './address-requests.ts';
import type { Refusal } from './claim-conditions.ts';
import type { ProjectIpam } from './ipam-directory.ts';

export interface AllocationTarget {
  ipam: ProjectIpam;
  /** This cell: part of every IPClaim's name, and its label. */
  cell: string;
  projectNamespace: string;
  network: string;
  location: string;
  reclaimPolicy: ReclaimPolicy;
}

export interface HeldRequest {
  request: AddressRequest;
  cidr: string;
  /** The IPClaim that holds it, as this attempt read or created it. */
  ipClaim: IPClaim;
}

export type AllocationOutcome =
  { allocated: true; held: HeldRequest[] } | { allocated: false; refusal: Refusal };

type OneOutcome = { claim: IPClaim; created: boolean } | { refusal: Refusal };

export async function allocateAll(
  owner: string,
  requests: readonly AddressRequest[],
  target: AllocationTarget,
  log: Logger,
): Promise<AllocationOutcome> {
  const created: string[] = [];
  const held: HeldRequest[] = [];
  const refuse = async (refusal: Refusal): Promise<AllocationOutcome> => {
    await rollback(created, target, log);
    return { allocated: false, refusal };
  };
  for (const request of requests) {
    const claimName = addressClaimName(owner, target.cell, request.discriminator);
    const outcome = await allocateOne(claimName, request, target);
    if ('refusal' in outcome) return refuse(outcome.refusal);
    if (outcome.created) created.push(claimName);
    const cidr = outcome.claim.status?.allocatedCIDR ?? '';
    if (cidr === '')
      return refuse({
        reason: ClaimReason.AllocationFailed,
        message: ipamFailureMessages.noAddressAllocated(request.what, outcome.claim.status?.phase ?? ''),
      });
    held.push({ request, cidr, ipClaim: outcome.claim });
  }
  return { allocated: true, held };
}

async function allocateOne(
  claimName: string,
  request: AddressRequest,
  target: AllocationTarget,
): Promise<OneOutcome> {
  const { ipam, projectNamespace } = target;
  const existing = await ipam.claims.get(claimName, projectNamespace);
  if (existing) return { claim: existing, created: false };
  try {
    const claim = await ipam.claims.create({
      metadata: { name: claimName, namespace: projectNamespace, labels: { [CELL_LABEL]: target.cell } },
      spec: {
        ...(request.kind === 'family' ? { ipFamily: request.family } : { className: request.className }),
        reclaimPolicy: target.reclaimPolicy,
        scope: networkLocationScope(target.network, target.location),
      },
    });
    return { claim, created: true };
  } catch (err) {
    if (isProjectNamespaceMissing(err, projectNamespace))
      return {
        refusal: {
          reason: ClaimReason.ProjectNamespaceNotFound,
          message: ipamFailureMessages.addressNamespaceNotFound(ipam.project, projectNamespace),
        },
      };
    const raced = await ipam.claims.get(claimName, projectNamespace);
    if (raced) return { claim: raced, created: false };
    return { refusal: classifyIpamFailure(err, request.what) };
  }
}

async function rollback(created: readonly string[], target: AllocationTarget, log: Logger): Promise<void> {
  for (const claimName of created) {
    try {
      await releaseIpClaim(target.ipam, target.projectNamespace, claimName);
    } catch (err) {
      log.warn(
        { err, ipClaim: claimName },
        'could not roll back an IPClaim; the next attempt finds it by name',
      );
    }
  }
}

/**
 * Deletes an IPClaim, then its IPAllocation (freeing an address IPAM retained). The allocation is
 * the one the claim names, else the one named after the claim (apis.md §7.4): a release killed
 * between the two deletes left no IPClaim to read, and the next attempt still frees it.
 */
async function releaseIpClaim(ipam: ProjectIpam, namespace: string, claimName: string): Promise<void> {
  const claim = await ipam.claims.get(claimName, namespace);
  await ipam.claims.delete(claimName, namespace);
  await ipam.allocations.delete(claim?.status?.boundAllocationRef?.name ?? claimName, namespace);
}

/** Releases the IPClaims `names`; every error is thrown together at the end. */
export async function releaseIpClaims(
  ipam: ProjectIpam,
  projectNamespace: string,
  owner: string,
  names: readonly string[],
): Promise<void> {
  const errors: unknown[] = [];
  for (const name of names) {
    try {
      await releaseIpClaim(ipam, projectNamespace, name);
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length > 0)
    throw new AggregateError(
      errors,
      `releasing the addresses of "${owner}" in project "${ipam.project}" failed`,
    );
}

/**
 * Releases the IPClaims that back `addresses`, some or all of what `iface` publishes (under
 * either name).
 */
export async function releaseInterfaceIpClaims(
  iface: NetworkInterface,
  addresses: readonly HeldAddress[],
  ipam: ProjectIpam,
  projectNamespace: string,
  cell: string,
): Promise<void> {
  const names: string[] = [];
  for (const held of addresses)
    names.push((await backingClaim(iface, held, ipam, projectNamespace, cell)).name);
  await releaseIpClaims(ipam, projectNamespace, allocationOwner(iface), names);
}

const holdsAddress = (claim: IPClaim, held: HeldAddress): boolean => {
  const cidr = claim.status?.allocatedCIDR ?? '';
  return held.external ? bareAddress(cidr) === bareAddress(held.address) : cidr === held.address;
};

/**
 * The IPClaim that should back one published address: `<owner>.<cell>-<discriminator>`; when
 * that is absent, the name of earlier versions if that IPClaim holds exactly this address.
 */
async function backingClaim(
  iface: NetworkInterface,
  held: HeldAddress,
  ipam: ProjectIpam,
  projectNamespace: string,
  cell: string,
  justRead: readonly IPClaim[] = [],
): Promise<{ name: string; claim?: IPClaim }> {
  const owner = allocationOwner(iface);
  const name = addressClaimName(owner, cell, held.discriminator);
  const claim =
    justRead.find((read) => read.metadata.name === name) ?? (await ipam.claims.get(name, projectNamespace));
  if (claim) return { name, claim };
  const legacyName = legacyAddressClaimName(owner, held.discriminator);
  const legacy = await ipam.claims.get(legacyName, projectNamespace);
  if (legacy && holdsAddress(legacy, held)) return { name: legacyName, claim: legacy };
  return { name };
}

export interface AllocationFinding {
  /** The condition message. */
  message: string;
  /** The Warning event note. */
  note: string;
}

/**
 * Every published address of `iface` that no IPClaim (or another CIDR) backs. `justRead` holds
 * the IPClaims this reconcile has just read or created (`allocateAll`, for an interface it built):
 * each is that read, not made again; every other IPClaim is read from IPAM.
 */
export async function checkAllocations(
  iface: NetworkInterface,
  ipam: ProjectIpam,
  projectNamespace: string,
  cell: string,
  justRead: readonly IPClaim[] = [],
): Promise<AllocationFinding[]> {
  const interfaceName = iface.metadata.name!;
  const findings: AllocationFinding[] = [];
  for (const held of heldAddresses(iface)) {
    const { name: ipClaim, claim } = await backingClaim(iface, held, ipam, projectNamespace, cell, justRead);
    if (!claim) {
      findings.push({
        message: networkInterfaceMessages.heldByNoAllocation(held.address, ipam.project),
        note: AddressAllocationMissingEvent.allocationGone(
          held.address,
          interfaceName,
          ipam.project,
          ipClaim,
        ),
      });
      continue;
    }
    if (!holdsAddress(claim, held)) {
      const cidr = claim.status?.allocatedCIDR ?? '';
      findings.push({
        message: networkInterfaceMessages.heldByOtherAllocation(held.address, ipClaim, cidr),
        note: AddressAllocationMissingEvent.allocationDiffers(
          held.address,
          interfaceName,
          ipClaim,
          ipam.project,
          cidr,
        ),
      });
    }
  }
  return findings;
}
