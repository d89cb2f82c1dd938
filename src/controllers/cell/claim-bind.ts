/**
 * Binding a claim to its interface (controllers.md §10 step 8): adopting an existing interface
 * that satisfies the claim, or building the requests and the object of a new one.
 *
 * Guarantees: adoption allocates nothing and is one write (claimRef and finalizer together,
 * guarded by the interface's resourceVersion); an interface held by another claim is never
 * taken; the adoption checks run in the spec's order, so a claim is told the first thing that
 * differs; class requests are read from IPAM before anything is allocated, so a class that maps
 * onto a family the interface does not carry refuses the claim without touching IPAM.
 */
import type { IPFamily } from '../../apis/common/refs.ts';
import { ClaimReason, claimRefusalMessages } from '../../apis/networking/v1alpha/claim-refusals.ts';
import type { NetworkContext } from '../../apis/networking/v1alpha/network-context.ts';
import type { NetworkInterfaceClaim } from '../../apis/networking/v1alpha/network-interface-claim.ts';
import {
  ALLOCATION_CLAIM_ANNOTATION,
  DEFAULT_INTERFACE_NAME,
  NETWORKINTERFACE_RELEASE_FINALIZER,
  type NetworkInterface,
  type NetworkInterfaceAddress,
  type NetworkInterfaceExternalAddress,
} from '../../apis/networking/v1alpha/network-interface.ts';
import type { ResourceClient } from '../../client/types.ts';
import {
  bareAddress,
  claimClasses,
  claimFamilies,
  classRequest,
  familyRequest,
  type AddressRequest,
} from './address-requests.ts';
import type { HeldRequest } from './allocation.ts';
import type { Refusal } from './claim-conditions.ts';
import type { ProjectIpam } from './ipam-directory.ts';

const reclaimPolicyOf = (spec: { reclaimPolicy?: 'Delete' | 'Retain' }) => spec.reclaimPolicy ?? 'Delete';

/** Why `iface` cannot be bound by `claim`, or undefined when it can. */
export function adoptionRefusal(iface: NetworkInterface, claim: NetworkInterfaceClaim): Refusal | undefined {
  const name = iface.metadata.name!;
  const claimName = claim.metadata.name!;
  const holder = iface.spec.claimRef?.name;
  if (holder !== undefined && holder !== claimName)
    return {
      reason: ClaimReason.InterfaceHeldByAnotherClaim,
      message: claimRefusalMessages.heldByAnotherClaim(name, holder),
    };
  const network = claim.spec.network.name;
  if (iface.spec.network.name !== network)
    return {
      reason: ClaimReason.NetworkMismatch,
      message: claimRefusalMessages.networkMismatch(name, iface.spec.network.name, network),
    };
  const presented = iface.spec.interfaceName ?? DEFAULT_INTERFACE_NAME;
  const asked = claim.spec.interfaceName ?? DEFAULT_INTERFACE_NAME;
  if (presented !== asked)
    return {
      reason: ClaimReason.InterfaceNameMismatch,
      message: claimRefusalMessages.interfaceNameMismatch(name, presented, asked),
    };
  const families = new Set((iface.spec.addresses ?? []).map((address) => address.family));
  const missingFamily = claimFamilies(claim).find((family) => !families.has(family));
  if (missingFamily)
    return {
      reason: ClaimReason.AddressFamilyMissing,
      message: claimRefusalMessages.familyMissing(name, missingFamily),
    };
  const classes = new Set((iface.spec.externalAddresses ?? []).map((address) => address.class));
  const missingClass = claimClasses(claim).find((addressClass) => !classes.has(addressClass));
  if (missingClass)
    return {
      reason: ClaimReason.AddressClassMissing,
      message: claimRefusalMessages.classMissing(name, missingClass),
    };
  const held = reclaimPolicyOf(iface.spec);
  const requested = reclaimPolicyOf(claim.spec);
  if (held !== requested)
    return {
      reason: ClaimReason.ReclaimPolicyMismatch,
      message: claimRefusalMessages.reclaimPolicyMismatch(name, held, requested),
    };
  return undefined;
}

/** Sets claimRef and the release finalizer in one write, when either is missing. */
export async function adopt(
  iface: NetworkInterface,
  claimName: string,
  client: ResourceClient<NetworkInterface>,
): Promise<NetworkInterface> {
  const finalizers = iface.metadata.finalizers ?? [];
  const hasFinalizer = finalizers.includes(NETWORKINTERFACE_RELEASE_FINALIZER);
  if (iface.spec.claimRef?.name === claimName && hasFinalizer) return iface;
  return client.patchMerge(iface.metadata.name!, iface.metadata.namespace, {
    metadata: {
      resourceVersion: iface.metadata.resourceVersion,
      ...(!hasFinalizer && { finalizers: [...finalizers, NETWORKINTERFACE_RELEASE_FINALIZER] }),
    },
    spec: { claimRef: { name: claimName } },
  });
}

/** The requests of a new interface: families, then classes (each class read and checked first). */
export async function newInterfaceRequests(
  claim: NetworkInterfaceClaim,
  ipam: ProjectIpam,
): Promise<{ requests: AddressRequest[] } | { refusal: Refusal }> {
  const families = claimFamilies(claim);
  const requests = families.map(familyRequest);
  for (const className of claimClasses(claim)) {
    let family: IPFamily;
    try {
      const ipClass = await ipam.classes.get(className);
      if (!ipClass) throw new Error(`ipclasses.ipam.miloapis.com "${className}" not found`);
      family = ipClass.spec.ipFamily;
    } catch (err) {
      return {
        refusal: {
          reason: ClaimReason.AddressAllocationRejected,
          message: claimRefusalMessages.classUnreadable(
            className,
            err instanceof Error ? err.message : String(err),
          ),
        },
      };
    }
    if (!families.includes(family))
      return {
        refusal: {
          reason: ClaimReason.AddressAllocationRejected,
          message: claimRefusalMessages.classFamilyNotCarried(className, family),
        },
      };
    requests.push(classRequest(className));
  }
  return { requests };
}

/** The interface §10 step 8 creates from what was allocated. */
export function newInterface(
  claim: NetworkInterfaceClaim,
  interfaceName: string,
  context: NetworkContext,
  held: readonly HeldRequest[],
): NetworkInterface {
  const claimName = claim.metadata.name!;
  const primaryFamily = claimFamilies(claim)[0];
  const addresses: NetworkInterfaceAddress[] = [];
  const externalAddresses: NetworkInterfaceExternalAddress[] = [];
  for (const { request, cidr } of held) {
    if (request.kind === 'family')
      addresses.push({
        family: request.family,
        address: cidr,
        primary: request.family === primaryFamily,
        class: '',
      });
    else
      externalAddresses.push({
        family: cidr.includes(':') ? 'IPv6' : 'IPv4',
        address: bareAddress(cidr),
        class: request.className,
      });
  }
  return {
    metadata: {
      name: interfaceName,
      namespace: claim.metadata.namespace,
      annotations: { [ALLOCATION_CLAIM_ANNOTATION]: claimName },
      finalizers: [NETWORKINTERFACE_RELEASE_FINALIZER],
    },
    spec: {
      network: { name: claim.spec.network.name },
      claimRef: { name: claimName },
      interfaceName: claim.spec.interfaceName ?? DEFAULT_INTERFACE_NAME,
      attachmentMode: claim.spec.attachmentMode ?? 'Netns',
      reclaimPolicy: reclaimPolicyOf(claim.spec),
      ...(context.spec.mtu !== undefined && { mtu: context.spec.mtu }),
      addresses,
      ...(externalAddresses.length > 0 && { externalAddresses }),
    },
  };
}
