/**
 * IPAM's refusals (apis.md §2.3–§2.6): the cause types a refused IPAM write carries in
 * `details.causes[].type`, and the messages the embedded IPAM writes.
 *
 * Guarantees: netpresence classifies a refusal by its cause type, never by its message; the
 * messages are for people and name the object to act on.
 */

export const IpamCause = {
  Exhausted: 'Exhausted',
  AllocationRetained: 'AllocationRetained',
  ClaimExists: 'ClaimExists',
  ClassNotFound: 'ClassNotFound',
  NoDefaultClass: 'NoDefaultClass',
  NoOfferingPool: 'NoOfferingPool',
  PrefixLengthRejected: 'PrefixLengthRejected',
  ScopeRolesMissing: 'ScopeRolesMissing',
  NoProjectScope: 'NoProjectScope',
} as const;
export type IpamCause = (typeof IpamCause)[keyof typeof IpamCause];

export const ipamRefusalMessages = {
  exhausted: (pool: string, prefixLength: number) => `IPPool "${pool}" has no free /${prefixLength} left`,
  allocationRetained: (claim: string) =>
    `IPClaim name "${claim}" is held by retained IPAllocation "${claim}"; delete the IPAllocation to reuse the name`,
  claimExists: (claim: string) => `ipclaims.ipam.miloapis.com "${claim}" already exists`,
  classNotFound: (className: string) => `IPClass "${className}" does not exist`,
  parentClassNotFound: (className: string, parent: string) =>
    `IPClass "${parent}", the parent of IPClass "${className}", does not exist`,
  classCycle: (chain: string[]) => `the parent chain of IPClass "${chain[0]}" loops: ${chain.join(' -> ')}`,
  classFamilyChange: (className: string, family: string, parent: string, parentFamily: string) =>
    `IPClass "${className}" is ${family}, but its parent IPClass "${parent}" is ${parentFamily}`,
  noDefaultClass: (family: string) => `no IPClass is marked default for ${family}`,
  noOfferingPool: (className: string) => `no IPPool offers IPClass "${className}"`,
  prefixLengthRejected: (prefixLength: number, className: string, min: number, max: number) =>
    `prefixLength ${prefixLength} is outside what IPClass "${className}" allows (${min}..${max})`,
  classNotLongerThanParent: (className: string, prefixLength: number, parent: string, parentLength: number) =>
    `IPClass "${className}" hands out /${prefixLength}, which is not longer than the /${parentLength} of its parent IPClass "${parent}"`,
  scopeRolesMissing: (className: string, required: string[], missing: string[]) =>
    `IPClass "${className}" requires scope roles ${required.join(', ')}; the claim lacks ${missing.join(', ')}`,
  rangeOccupied: (pool: string, count: number) =>
    `IPPool "${pool}" still has ${count} allocation(s) inside it`,
  allocationBound: (allocation: string, claim: string) =>
    `IPAllocation "${allocation}" is bound to IPClaim "${claim}"; delete the claim instead`,
  poolBound: (pool: string, namespace: string, claim: string) =>
    `IPPool "${pool}" is bound to IPClaim "${claim}" in namespace "${namespace}"; delete the claim instead`,
  poolFieldsSetByIpam: 'parentPoolRef and scope are set by IPAM',
  claimStatusByIpam: 'IPClaim status is written by IPAM',
  allocationCreatedByIpam: 'IPAllocations are created by IPAM; create an IPClaim instead',
  allocationStatusByIpam: 'IPAllocation status is written by IPAM',
};

/** Why IPAM refuses a pool's `spec.cidr` (422 Invalid on `spec.cidr`, apis.md §2.3). */
export const poolValidationMessages = {
  notACidr: 'must be a CIDR such as fd20::/48 or 10.128.0.0/16',
  hostBits: (network: string) => `has host bits set; the prefix is ${network}`,
  notCanonical: (canonical: string) => `must be written canonically: ${canonical}`,
  familyMismatch: (family: string, className: string, classFamily: string) =>
    `is an ${family} prefix, but IPClass "${className}" is ${classFamily}`,
  overlapsRootPool: (pool: string, cidr: string) => `overlaps root IPPool "${pool}" (${cidr})`,
};
