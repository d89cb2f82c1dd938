/**
 * The reasons a NetworkInterfaceClaim's conditions carry and the messages the claim controller
 * and the location identity write with them (apis.md §1.9, controllers.md §9–§10).
 *
 * Guarantees: a refusal sets `Ready=False` with one of `ClaimReason`'s refusal reasons and the
 * message built here; `readyMessages` word the derived `Ready`; names are quoted as the spec
 * quotes them.
 */
import { IpamFailureReason } from './ipam-failures.ts';

export const ClaimReason = {
  Pending: 'Pending',
  Bound: 'Bound',
  Allocated: 'Allocated',
  AddressAllocationMissing: 'AddressAllocationMissing',
  Ready: 'Ready',
  NotBound: 'NotBound',
  NotAllocated: 'NotAllocated',
  NotPrepared: 'NotPrepared',
  NotProgrammed: 'NotProgrammed',
  NoLocationIdentity: 'NoLocationIdentity',
  AmbiguousLocationIdentity: 'AmbiguousLocationIdentity',
  ProjectUnresolved: 'ProjectUnresolved',
  NetworkNotAvailableInLocation: 'NetworkNotAvailableInLocation',
  AddressFamiliesUnknown: 'AddressFamiliesUnknown',
  AddressFamilyNotCarried: 'AddressFamilyNotCarried',
  InterfaceHeldByAnotherClaim: 'InterfaceHeldByAnotherClaim',
  NetworkMismatch: 'NetworkMismatch',
  InterfaceNameMismatch: 'InterfaceNameMismatch',
  AddressFamilyMissing: 'AddressFamilyMissing',
  AddressClassMissing: 'AddressClassMissing',
  ReclaimPolicyMismatch: 'ReclaimPolicyMismatch',
  SubnetGatewayUnusable: 'SubnetGatewayUnusable',
  ProjectNamespaceNotFound: IpamFailureReason.ProjectNamespaceNotFound,
  AddressPoolExhausted: IpamFailureReason.AddressPoolExhausted,
  RetainedAddressConflict: IpamFailureReason.RetainedAddressConflict,
  AddressAllocationRejected: IpamFailureReason.AddressAllocationRejected,
  AllocationFailed: IpamFailureReason.AllocationFailed,
} as const;

export const readyMessages = {
  ready: 'The interface is bound, addressed, prepared, and programmed',
  /** Ready while `type` is the first input that is not True. */
  waitingFor: (type: string) => `Waiting for ${type}`,
  bound: (iface: string) => `Bound to network interface "${iface}"`,
};

export const identityMessages = {
  ambiguous: (count: number) =>
    `${count} ServingLocations have been delivered to this cell; exactly one cluster label topology.datum.net/location is expected and no location is configured to fall back to`,
  none: 'no ServingLocation has been delivered to this cell and no location is configured; label the cluster with topology.datum.net/location or start the cell with --location',
};

export const claimRefusalMessages = {
  networkNotAvailable: (network: string, location: string, context: string, namespace: string) =>
    `Network "${network}" has not reached location "${location}": no network context "${context}" exists in namespace "${namespace}"`,
  familiesUnknown: (context: string, network: string, location: string) =>
    `Network context "${context}" states no address families, so what network "${network}" carries in location "${location}" is unknown here`,
  familyNotCarried: (network: string, location: string, family: string) =>
    `Network "${network}" in location "${location}" does not carry address family ${family}`,
  heldByAnotherClaim: (iface: string, other: string) =>
    `Network interface "${iface}" is held by claim "${other}"`,
  networkMismatch: (iface: string, held: string, network: string) =>
    `Network interface "${iface}" holds addresses on network "${held}" and cannot be bound by a claim naming network "${network}"`,
  interfaceNameMismatch: (iface: string, presented: string, asked: string) =>
    `Network interface "${iface}" presents as "${presented}" to the guest and cannot be bound by a claim asking for "${asked}"`,
  familyMissing: (iface: string, family: string) =>
    `Network interface "${iface}" holds no ${family} address, which this claim requires`,
  classMissing: (iface: string, addressClass: string) =>
    `Network interface "${iface}" holds no address of class "${addressClass}", which this claim requires`,
  reclaimPolicyMismatch: (iface: string, held: string, requested: string) =>
    `Network interface "${iface}" holds addresses allocated with reclaimPolicy ${held} and cannot be bound by a claim requesting ${requested}`,
  classUnreadable: (addressClass: string, error: string) =>
    `Address class "${addressClass}" could not be read: ${error}`,
  classFamilyNotCarried: (addressClass: string, family: string) =>
    `Address class "${addressClass}" hands out ${family} addresses, which map onto an ${family} address this interface does not carry`,
};

/** SubnetGatewayUnusable messages (the gateway rule, controllers.md §10). */
export const gatewayMessages = {
  noStartAddress: (subnet: string, family: string) =>
    `Subnet "${subnet}" addresses family ${family} in this location and states no usable start address, so the interface has no gateway`,
  wrongFamily: (subnet: string, family: string, start: string) =>
    `Subnet "${subnet}" addresses family ${family} in this location but its start address ${start} is not an ${family} address, so the interface has no gateway`,
  noAddressAfterStart: (subnet: string, family: string, start: string, prefixLength: number) =>
    `Subnet "${subnet}" addresses family ${family} in this location but ${start}/${prefixLength} has no address after its start, so the interface has no gateway`,
};
