/**
 * What a claim asks IPAM for and what an interface holds, as IPClaim names (controllers.md §10,
 * apis.md §7.4): one request per family (`f-<family>`) and one per address class (`c-<class>`),
 * each an IPClaim named `<owner>.<cell>-<discriminator>` (or its hashed fallback).
 *
 * Guarantees: requests come in the spec's order — families first, then classes; the owner of an
 * interface's allocations is its allocation-claim annotation, else its claimRef, else its own
 * name, so an adopted interface still finds the IPClaims minted for it; `bareAddress` strips
 * the prefix only from a host CIDR (/32, /128) and keeps any other value as it is.
 */
import type { IPFamily } from '../../apis/common/refs.ts';
import { classDiscriminator, familyDiscriminator } from '../../apis/ipam/v1alpha1/ip-claim.ts';
import { requestDescription } from '../../apis/networking/v1alpha/ipam-failures.ts';
import type { NetworkInterfaceClaim } from '../../apis/networking/v1alpha/network-interface-claim.ts';
import {
  ALLOCATION_CLAIM_ANNOTATION,
  type NetworkInterface,
} from '../../apis/networking/v1alpha/network-interface.ts';

export type AddressRequest =
  | { kind: 'family'; family: IPFamily; discriminator: string; what: string }
  | { kind: 'class'; className: string; discriminator: string; what: string };

export const DEFAULT_FAMILIES: IPFamily[] = ['IPv6'];

export function claimFamilies(claim: NetworkInterfaceClaim): IPFamily[] {
  return claim.spec.ipFamilies ?? DEFAULT_FAMILIES;
}

export function claimClasses(claim: NetworkInterfaceClaim): string[] {
  return (claim.spec.addresses ?? []).map((address) => address.class);
}

export function familyRequest(family: IPFamily): AddressRequest {
  return {
    kind: 'family',
    family,
    discriminator: familyDiscriminator(family),
    what: requestDescription({ family }),
  };
}

export function classRequest(className: string): AddressRequest {
  return {
    kind: 'class',
    className,
    discriminator: classDiscriminator(className),
    what: requestDescription({ className }),
  };
}

/** The discriminators a claim's spec asks for, families first. */
export function claimDiscriminators(claim: NetworkInterfaceClaim): string[] {
  return [...claimFamilies(claim).map(familyDiscriminator), ...claimClasses(claim).map(classDiscriminator)];
}

/** The claim name an interface's IPClaims were minted under. */
export function allocationOwner(iface: NetworkInterface): string {
  return (
    iface.metadata.annotations?.[ALLOCATION_CLAIM_ANNOTATION] ??
    iface.spec.claimRef?.name ??
    iface.metadata.name!
  );
}

/** One published address of an interface and the IPClaim that should back it. */
export interface HeldAddress {
  address: string;
  discriminator: string;
  external: boolean;
}

/** Every address an interface publishes, internal first, with its discriminator. */
export function heldAddresses(iface: NetworkInterface): HeldAddress[] {
  return [
    ...(iface.spec.addresses ?? []).map((address) => ({
      address: address.address,
      discriminator: address.class ? classDiscriminator(address.class) : familyDiscriminator(address.family),
      external: false,
    })),
    ...(iface.spec.externalAddresses ?? []).map((address) => ({
      address: address.address,
      discriminator: classDiscriminator(address.class),
      external: true,
    })),
  ];
}

const HOST_PREFIX = /^(.*)\/(32|128)$/;

/** A host CIDR without its prefix (`203.0.113.1/32` → `203.0.113.1`); anything else as it is. */
export function bareAddress(value: string): string {
  const host = HOST_PREFIX.exec(value);
  if (!host) return value;
  const [, address, length] = host;
  const isV6 = address.includes(':');
  return (isV6 && length === '128') || (!isV6 && length === '32') ? address : value;
}
