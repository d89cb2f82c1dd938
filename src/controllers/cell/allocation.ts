/**
 * An interface's addresses in IPAM (controllers.md §10 steps 8, 10 and "Releasing addresses"):
 * allocating all of a claim's requests or none, checking that every published address is still
 * backed by its IPClaim, and releasing an owner's IPClaims with any retained IPAllocation.
 *
 * Guarantees:
 * - `allocateAll` reads each IPClaim before creating it, so a retry (names are deterministic)
 *   reuses what an earlier attempt made; a refused create is read once more (a lost race); on any
 *   refusal it rolls back exactly the IPClaims this attempt created, and a failed rollback is
 *   logged, not thrown — the next attempt finds them by name;
 * - `checkAllocations` never reallocates; it only reports what it finds;
 * - `releaseAddresses` tolerates what is already gone and throws every other error together.
 */
import type { Logger } from 'pino';
import type { IPClaim } from '../../apis/ipam/v1alpha1/ip-claim.ts';
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
  ipClaimNameFor,
  type AddressRequest,
} from './address-requests.ts';
import type { Refusal } from './claim-conditions.ts';
import type { ProjectIpam } from './ipam-directory.ts';

export interface AllocationTarget {
  ipam: ProjectIpam;
  projectNamespace: string;
  network: string;
  location: string;
  reclaimPolicy: ReclaimPolicy;
}

export interface HeldRequest {
  request: AddressRequest;
  cidr: string;
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
    const claimName = ipClaimNameFor(owner, request.discriminator);
    const outcome = await allocateOne(claimName, request, target);
    if ('refusal' in outcome) return refuse(outcome.refusal);
    if (outcome.created) created.push(claimName);
    const cidr = outcome.claim.status?.allocatedCIDR ?? '';
    if (cidr === '')
      return refuse({
        reason: ClaimReason.AllocationFailed,
        message: ipamFailureMessages.noAddressAllocated(request.what, outcome.claim.status?.phase ?? ''),
      });
    held.push({ request, cidr });
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
      metadata: { name: claimName, namespace: projectNamespace },
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

/** Deletes an IPClaim and, when it named one, its IPAllocation (freeing a retained address). */
async function releaseIpClaim(ipam: ProjectIpam, namespace: string, claimName: string): Promise<void> {
  const claim = await ipam.claims.get(claimName, namespace);
  await ipam.claims.delete(claimName, namespace);
  const allocation = claim?.status?.boundAllocationRef?.name;
  if (allocation) await ipam.allocations.delete(allocation, namespace);
}

/** Releases the IPClaims `<owner>-<discriminator>`; every error is thrown together at the end. */
export async function releaseAddresses(
  ipam: ProjectIpam,
  projectNamespace: string,
  owner: string,
  discriminators: readonly string[],
): Promise<void> {
  const errors: unknown[] = [];
  for (const discriminator of discriminators) {
    try {
      await releaseIpClaim(ipam, projectNamespace, ipClaimNameFor(owner, discriminator));
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

/** The discriminators of the addresses an interface publishes. */
export function interfaceDiscriminators(iface: NetworkInterface): string[] {
  return heldAddresses(iface).map((address) => address.discriminator);
}

export interface AllocationFinding {
  /** The condition message. */
  message: string;
  /** The Warning event note. */
  note: string;
}

/** Every published address of `iface` that no IPClaim (or another CIDR) backs. */
export async function checkAllocations(
  iface: NetworkInterface,
  ipam: ProjectIpam,
  projectNamespace: string,
): Promise<AllocationFinding[]> {
  const owner = allocationOwner(iface);
  const interfaceName = iface.metadata.name!;
  const findings: AllocationFinding[] = [];
  for (const held of heldAddresses(iface)) {
    const ipClaim = ipClaimNameFor(owner, held.discriminator);
    const claim = await ipam.claims.get(ipClaim, projectNamespace);
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
    const cidr = claim.status?.allocatedCIDR ?? '';
    const matches = held.external ? bareAddress(cidr) === bareAddress(held.address) : cidr === held.address;
    if (!matches)
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
  return findings;
}
