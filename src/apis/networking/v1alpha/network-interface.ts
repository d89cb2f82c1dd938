/**
 * NetworkInterface (apis.md §1.10): the unit that owns addresses on a network, in a cell.
 * Created only by the claim controller; it outlives its claim under `reclaimPolicy: Retain`.
 *
 * Guarantees: at most four addresses, one per family, exactly one of them primary (when there
 * are any); at most four external addresses, unique by address and by class. `spec.network`
 * never changes. A new interface is seeded `Allocated`, `Prepared` and `Programmed` Unknown.
 */
import { CloneType, Type, type Static } from '@sinclair/typebox';
import { Conditions, seededStatus } from '../../common/condition.ts';
import { ageColumn, conditionStatusColumn, defineKind, fieldColumn } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { IPFamily, LocalNetworkContextRef, LocalNetworkRef } from '../../common/refs.ts';
import { immutable, Int32, ObjectName, rule, StringEnum, validations } from '../../common/schema.ts';
import { NETWORKING_GROUP, NETWORKING_VERSION } from './group.ts';
import { MTU_MAX, MTU_MIN } from './network.ts';

export const NetworkInterfaceConditionType = {
  Allocated: 'Allocated',
  Prepared: 'Prepared',
  Programmed: 'Programmed',
} as const;

export const NetworkInterfaceReason = {
  Pending: 'Pending',
  Allocated: 'Allocated',
  AddressAllocationMissing: 'AddressAllocationMissing',
} as const;

export const networkInterfaceMessages = {
  allocated: 'Every requested address is held',
  /** Seeds of the data-plane conditions, written only when absent. */
  waitingToPrepare: 'Waiting for the data plane to prepare the attachment',
  waitingToProgram: 'Waiting for the data plane to report the attachment',
  heldByNoAllocation: (address: string, project: string) =>
    `Address ${address} is held by no allocation in project "${project}"`,
  heldByOtherAllocation: (address: string, ipClaim: string, cidr: string) =>
    `Address ${address} is published, but allocation "${ipClaim}" holds ${cidr}`,
};

/** The AddressAllocationMissing Warning event (apis.md §7.5): regarding the claim, related the interface. */
export const AddressAllocationMissingEvent = {
  reason: 'AddressAllocationMissing',
  action: 'VerifyAllocation',
  allocationGone: (address: string, iface: string, project: string, ipClaim: string) =>
    `Address ${address} on network interface "${iface}" has no allocation in project "${project}" (IPClaim "${ipClaim}" is gone). IPAM considers the address free and may hand it to another claim.`,
  allocationDiffers: (address: string, iface: string, ipClaim: string, project: string, cidr: string) =>
    `Address ${address} on network interface "${iface}" is published, but allocation "${ipClaim}" in project "${project}" holds ${cidr}. The published address belongs to no one and may be given to another claim.`,
} as const;

export const NETWORKINTERFACE_RELEASE_FINALIZER = 'networking.datumapis.com/networkinterface-release';
/** The claim name the interface's IPClaims were minted under. */
export const ALLOCATION_CLAIM_ANNOTATION = 'networking.datumapis.com/allocation-claim';

export const NETWORK_IMMUTABLE_MESSAGE = 'network is immutable and cannot be changed after creation';
export const ONE_PRIMARY_MESSAGE = 'Exactly one address must be primary';
export const ONE_ADDRESS_PER_FAMILY_MESSAGE = 'Only one address may be held per address family';
export const EXTERNAL_ADDRESSES_UNIQUE_MESSAGE = 'External addresses must be unique';
export const ONE_EXTERNAL_ADDRESS_PER_CLASS_MESSAGE =
  'Only one external address may be held per address class';

/** Copied from the claim to the interface, never interpreted by netpresence. */
export const AttachmentMode = StringEnum(['Netns', 'Hypervisor']);
export const ReclaimPolicy = StringEnum(['Delete', 'Retain']);
export type ReclaimPolicy = Static<typeof ReclaimPolicy>;

export const DEFAULT_INTERFACE_NAME = 'eth0';

export const NetworkInterfaceAddress = Type.Object({
  family: IPFamily,
  address: Type.String({ minLength: 1, maxLength: 45, description: 'A CIDR, for example fd20::1:0:0/96.' }),
  gateway: Type.Optional(
    Type.String({ maxLength: 45, description: 'Empty until a subnet for the family exists.' }),
  ),
  primary: Type.Optional(Type.Boolean()),
  class: Type.Optional(Type.String({ maxLength: 63, description: 'Empty for family-requested addresses.' })),
});
export type NetworkInterfaceAddress = Static<typeof NetworkInterfaceAddress>;

export const NetworkInterfaceExternalAddress = Type.Object({
  family: IPFamily,
  address: Type.String({ minLength: 1, maxLength: 45, description: 'A bare address, no prefix.' }),
  class: Type.String({ minLength: 1, maxLength: 63 }),
});
export type NetworkInterfaceExternalAddress = Static<typeof NetworkInterfaceExternalAddress>;

export const NetworkInterfaceSpec = Type.Object({
  network: CloneType(LocalNetworkRef, validations(immutable(NETWORK_IMMUTABLE_MESSAGE))),
  claimRef: Type.Optional(
    Type.Object({ name: ObjectName() }, { description: 'The claim holding it; absent while retained.' }),
  ),
  interfaceName: Type.Optional(Type.String({ default: DEFAULT_INTERFACE_NAME, minLength: 1, maxLength: 15 })),
  attachmentMode: Type.Optional(CloneType(AttachmentMode, { default: 'Netns' })),
  mtu: Type.Optional(Int32({ minimum: MTU_MIN, maximum: MTU_MAX })),
  addresses: Type.Optional(
    Type.Array(NetworkInterfaceAddress, {
      maxItems: 4,
      ...validations(
        rule(
          'size(self) == 0 || self.filter(a, has(a.primary) && a.primary).size() == 1',
          ONE_PRIMARY_MESSAGE,
        ),
        rule('self.all(a, self.exists_one(b, b.family == a.family))', ONE_ADDRESS_PER_FAMILY_MESSAGE),
      ),
    }),
  ),
  externalAddresses: Type.Optional(
    Type.Array(NetworkInterfaceExternalAddress, {
      maxItems: 4,
      ...validations(
        rule('self.all(a, self.exists_one(b, b.address == a.address))', EXTERNAL_ADDRESSES_UNIQUE_MESSAGE),
        rule('self.all(a, self.exists_one(b, b.class == a.class))', ONE_EXTERNAL_ADDRESS_PER_CLASS_MESSAGE),
      ),
    }),
  ),
  reclaimPolicy: Type.Optional(CloneType(ReclaimPolicy, { default: 'Delete' })),
});

export const NetworkInterfaceStatus = Type.Object(
  {
    phase: Type.Optional(StringEnum(['Available', 'Bound'])),
    networkContextRef: Type.Optional(LocalNetworkContextRef),
    attachmentRef: Type.Optional(
      Type.Object(
        {
          apiGroup: Type.String({ minLength: 1, maxLength: 253 }),
          kind: Type.String({ minLength: 1, maxLength: 63 }),
          name: ObjectName(),
        },
        { description: 'Written by the data plane only.' },
      ),
    ),
    vpc: Type.Optional(Type.String({ description: 'Written by the data plane only.' })),
    conditions: Type.Optional(Conditions()),
  },
  {
    default: seededStatus([
      NetworkInterfaceConditionType.Allocated,
      NetworkInterfaceConditionType.Prepared,
      NetworkInterfaceConditionType.Programmed,
    ]),
  },
);

export const NetworkInterfaceSchema = Type.Object(
  { spec: NetworkInterfaceSpec, status: Type.Optional(NetworkInterfaceStatus) },
  { description: 'The unit that owns addresses on a network; created only by the claim controller.' },
);
export type NetworkInterface = TypedObject<typeof NetworkInterfaceSchema>;

export const networkInterfaceKind = defineKind({
  group: NETWORKING_GROUP,
  version: NETWORKING_VERSION,
  kind: 'NetworkInterface',
  plural: 'networkinterfaces',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [
    ageColumn(),
    fieldColumn('Network', '.spec.network.name'),
    fieldColumn('Phase', '.status.phase'),
    fieldColumn('Claim', '.spec.claimRef.name'),
    conditionStatusColumn('Allocated'),
    conditionStatusColumn('Prepared'),
    conditionStatusColumn('Programmed'),
  ],
  schema: NetworkInterfaceSchema,
});
