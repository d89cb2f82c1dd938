/**
 * NetworkInterfaceClaim (apis.md §1.9): what a workload asks for — an interface on a network —
 * in a cell. Its name stays with the workload slot.
 *
 * Guarantees: every spec field is immutable once written (`networkInterfaceName` and
 * `addresses` cannot even be set or cleared later); families and address classes are each
 * requested at most once; defaults `eth0`, `Netns`, `[IPv6]`, `Delete`. A new claim is seeded
 * `Bound`, `Allocated`, `Prepared`, `Programmed` and `Ready` Unknown. The refusal reasons and
 * messages are the claim controller's (controllers.md §9–§10), in claim-refusals.ts.
 */
import { CloneType, Type, type Static } from '@sinclair/typebox';
import { Conditions, seededStatus } from '../../common/condition.ts';
import {
  ageColumn,
  conditionReasonColumn,
  conditionStatusColumn,
  defineKind,
  fieldColumn,
} from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { IPFamily, LocalNetworkInterfaceRef, LocalNetworkRef } from '../../common/refs.ts';
import { immutable, ObjectName, rule, validations } from '../../common/schema.ts';
import { NETWORKING_GROUP, NETWORKING_VERSION } from './group.ts';
import {
  AttachmentMode,
  DEFAULT_INTERFACE_NAME,
  NETWORK_IMMUTABLE_MESSAGE,
  NetworkInterfaceAddress,
  NetworkInterfaceExternalAddress,
  ReclaimPolicy,
} from './network-interface.ts';

export const ClaimConditionType = {
  Bound: 'Bound',
  Allocated: 'Allocated',
  Prepared: 'Prepared',
  Programmed: 'Programmed',
  Ready: 'Ready',
} as const;

/** The conditions whose first non-True one decides `Ready`, in order. */
export const READY_INPUTS = [
  ClaimConditionType.Bound,
  ClaimConditionType.Allocated,
  ClaimConditionType.Prepared,
  ClaimConditionType.Programmed,
] as const;

export const NETWORKINTERFACECLAIM_RELEASE_FINALIZER =
  'networking.datumapis.com/networkinterfaceclaim-release';

export const INTERFACE_NAME_IMMUTABLE_MESSAGE =
  'interfaceName is immutable and cannot be changed after creation';
export const ATTACHMENT_MODE_IMMUTABLE_MESSAGE =
  'attachmentMode is immutable and cannot be changed after creation';
export const FAMILY_REQUESTED_ONCE_MESSAGE = 'Each address family may be requested at most once';
export const FAMILIES_IMMUTABLE_MESSAGE = 'ipFamilies is immutable and cannot be changed after creation';
export const CLASSES_UNIQUE_MESSAGE = 'Each address class may be requested at most once';
export const RECLAIM_POLICY_IMMUTABLE_MESSAGE =
  'reclaimPolicy is immutable and cannot be changed after creation';
export const NETWORK_INTERFACE_NAME_IMMUTABLE_MESSAGE =
  'networkInterfaceName is immutable and cannot be set, changed, or cleared after creation';
export const ADDRESSES_IMMUTABLE_MESSAGE =
  'addresses is immutable and cannot be set, changed, or cleared after creation';

export const NetworkInterfaceClaimSpec = Type.Object(
  {
    network: CloneType(LocalNetworkRef, validations(immutable(NETWORK_IMMUTABLE_MESSAGE))),
    interfaceName: Type.Optional(
      Type.String({
        description: 'Device name in the guest.',
        default: DEFAULT_INTERFACE_NAME,
        minLength: 1,
        maxLength: 15,
        ...validations(immutable(INTERFACE_NAME_IMMUTABLE_MESSAGE)),
      }),
    ),
    attachmentMode: Type.Optional(
      CloneType(AttachmentMode, {
        description: 'Copied to the interface, never interpreted.',
        default: 'Netns',
        ...validations(immutable(ATTACHMENT_MODE_IMMUTABLE_MESSAGE)),
      }),
    ),
    ipFamilies: Type.Optional(
      Type.Array(IPFamily, {
        description: 'The first family is the primary address.',
        default: ['IPv6'],
        minItems: 1,
        maxItems: 2,
        ...validations(
          rule('self.all(f, self.exists_one(g, g == f))', FAMILY_REQUESTED_ONCE_MESSAGE),
          immutable(FAMILIES_IMMUTABLE_MESSAGE),
        ),
      }),
    ),
    addresses: Type.Optional(
      Type.Array(Type.Object({ class: Type.String({ minLength: 1, maxLength: 63 }) }), {
        description: 'Extra (external) addresses by IPAM class.',
        minItems: 1,
        maxItems: 4,
        ...validations(rule('self.all(a, self.exists_one(b, b.class == a.class))', CLASSES_UNIQUE_MESSAGE)),
      }),
    ),
    reclaimPolicy: Type.Optional(
      CloneType(ReclaimPolicy, {
        description: 'Fate of the interface when the claim goes.',
        default: 'Delete',
        ...validations(immutable(RECLAIM_POLICY_IMMUTABLE_MESSAGE)),
      }),
    ),
    networkInterfaceName: Type.Optional(
      ObjectName({ description: 'Bind this interface instead of the one named after the claim.' }),
    ),
  },
  validations(
    rule(
      'has(self.networkInterfaceName) == has(oldSelf.networkInterfaceName) && (!has(self.networkInterfaceName) || self.networkInterfaceName == oldSelf.networkInterfaceName)',
      NETWORK_INTERFACE_NAME_IMMUTABLE_MESSAGE,
    ),
    rule(
      'has(self.addresses) == has(oldSelf.addresses) && (!has(self.addresses) || self.addresses == oldSelf.addresses)',
      ADDRESSES_IMMUTABLE_MESSAGE,
    ),
  ),
);
export type NetworkInterfaceClaimSpec = Static<typeof NetworkInterfaceClaimSpec>;

export const NetworkInterfaceClaimStatus = Type.Object(
  {
    networkInterfaceRef: Type.Optional(LocalNetworkInterfaceRef),
    addresses: Type.Optional(Type.Array(NetworkInterfaceAddress)),
    externalAddresses: Type.Optional(Type.Array(NetworkInterfaceExternalAddress)),
    conditions: Type.Optional(Conditions()),
  },
  { default: seededStatus(Object.values(ClaimConditionType)) },
);

export const NetworkInterfaceClaimSchema = Type.Object(
  { spec: NetworkInterfaceClaimSpec, status: Type.Optional(NetworkInterfaceClaimStatus) },
  { description: 'What a workload asks for: an interface on a network.' },
);
export type NetworkInterfaceClaim = TypedObject<typeof NetworkInterfaceClaimSchema>;

/** The interface a claim binds: `spec.networkInterfaceName`, else the claim's name. */
export function claimedInterfaceName(claimName: string, spec: NetworkInterfaceClaimSpec): string {
  return spec.networkInterfaceName ?? claimName;
}

export const networkInterfaceClaimKind = defineKind({
  group: NETWORKING_GROUP,
  version: NETWORKING_VERSION,
  kind: 'NetworkInterfaceClaim',
  plural: 'networkinterfaceclaims',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [
    ageColumn(),
    fieldColumn('Network', '.spec.network.name'),
    fieldColumn('Interface', '.status.networkInterfaceRef.name'),
    conditionStatusColumn('Ready'),
    conditionReasonColumn('Reason', 'Ready'),
  ],
  schema: NetworkInterfaceClaimSchema,
});
