/**
 * IPAM failures as netpresence reports them on Networks, NetworkContexts and
 * NetworkInterfaceClaims: the reason classes of apis.md §2.6 and the messages of
 * controllers.md §1.3–§1.4.
 *
 * Guarantees: a message states each fact once; `<what>` is one of `requestDescription`'s three
 * wordings, `<subject>` is `this network` or `this location`.
 */

export const IpamFailureReason = {
  AddressPoolExhausted: 'AddressPoolExhausted',
  RetainedAddressConflict: 'RetainedAddressConflict',
  AddressAllocationRejected: 'AddressAllocationRejected',
  AllocationFailed: 'AllocationFailed',
  ProjectNamespaceNotFound: 'ProjectNamespaceNotFound',
  RangeOccupied: 'RangeOccupied',
  RangeUnsupported: 'RangeUnsupported',
} as const;
export type IpamFailureReason = (typeof IpamFailureReason)[keyof typeof IpamFailureReason];

/** `<what>`: the request an IPAM failure is about. */
export function requestDescription(request: { family?: 'IPv4' | 'IPv6'; className?: string }): string {
  if (request.className !== undefined) return `an address of class "${request.className}"`;
  return request.family === 'IPv4' ? 'an IPv4 address' : 'an IPv6 address';
}

export const ipamFailureMessages = {
  exhaustedPool: (what: string, pool: string) =>
    `No address is left for ${what}: IPPool "${pool}" is exhausted`,
  exhausted: (what: string, ipamMessage: string) => `No address is left for ${what}: ${ipamMessage}`,
  conflict: (what: string, ipamMessage: string) =>
    `Another allocation still holds the name for ${what}: ${ipamMessage}`,
  rejected: (what: string, ipamMessage: string) => `IPAM would not allocate ${what}: ${ipamMessage}`,
  failed: (what: string, error: string) => `Allocating ${what} failed: ${error}`,
  /** `ProjectNamespaceNotFound` while holding a scope range. */
  rangeNamespaceNotFound: (project: string, namespace: string) =>
    `Project "${project}" has no namespace "${namespace}" in its control plane, so no address space can be allocated for it`,
  /** `ProjectNamespaceNotFound` while allocating an interface's addresses. */
  addressNamespaceNotFound: (project: string, namespace: string) =>
    `Project "${project}" has no namespace "${namespace}" in its control plane, so no address can be allocated for it`,
  rangeUnsupported: (claim: string, subject: string) =>
    `IPAM did not keep the request for a range on claim "${claim}", so it cannot report the address space ${subject} is drawn from`,
  noRangeAllocated: (subject: string, phase: string) =>
    `IPAM allocated no address space for ${subject} (phase "${phase}")`,
  noAddressAllocated: (what: string, phase: string) =>
    `IPAM reported no address for ${what} (phase "${phase}")`,
};
