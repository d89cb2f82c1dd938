/**
 * Network (apis.md §1.2): a project's network, in the project plane. Its spec fixes the rules
 * every presence of the network projects — address families and MTU — and its status publishes
 * the /48 the network holds.
 *
 * Guarantees: a stored Network carries `ipFamilies` (default `[IPv6]`, one or two distinct
 * families) and `mtu` (default 1460, 1300..8856); a new Network is seeded `Ready=Unknown`.
 */
import { Type } from '@sinclair/typebox';
import { Conditions, seededStatus } from '../../common/condition.ts';
import {
  ageColumn,
  conditionReasonColumn,
  conditionStatusColumn,
  defineKind,
  fieldColumn,
} from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { IPFamily, NetworkPrefixRef } from '../../common/refs.ts';
import { Int32, rule, StringEnum, validations } from '../../common/schema.ts';
import { NETWORKING_GROUP, NETWORKING_VERSION } from './group.ts';
import { IpamFailureReason } from './ipam-failures.ts';

export const MTU_MIN = 1300;
export const MTU_MAX = 8856;
export const DEFAULT_MTU = 1460;

export const NetworkConditionType = { IPAMAllocated: 'IPAMAllocated', Ready: 'Ready' } as const;

export const NetworkReason = {
  Pending: 'Pending',
  Allocated: 'Allocated',
  Ready: 'Ready',
  ...IpamFailureReason,
} as const;

export const networkMessages = {
  allocated: (cidr: string) => `The network is addressed from ${cidr}`,
  rangeOccupied: (ipamMessage: string) =>
    `the network's address space still has addresses allocated inside it: ${ipamMessage}`,
  noAddressService: 'No address service is configured, so the network is used without claimed address space',
  claimsNoAddressSpace: 'The network claims no address space',
  /** `<subject>` of the range messages in ipam-failures.ts. */
  subject: 'this network',
};

export const NETWORK_CONTROLLER_FINALIZER = 'networking.datumapis.com/network-controller';
export const NETWORK_PREFIX_RELEASE_FINALIZER = 'networking.datumapis.com/network-prefix-release';

export const FAMILIES_UNIQUE_MESSAGE = 'Each address family may be listed at most once';

export const NetworkSpec = Type.Object({
  ipam: Type.Object({
    mode: StringEnum(['Auto', 'Policy'], {
      description: 'Auto: the network claims its IPv6 range from IPAM.',
    }),
    ipv4Range: Type.Optional(Type.String()),
    ipv6Range: Type.Optional(Type.String()),
  }),
  ipFamilies: Type.Optional(
    Type.Array(IPFamily, {
      description: 'Address families the network carries.',
      default: ['IPv6'],
      minItems: 1,
      maxItems: 2,
      ...validations(rule('self.all(f, self.exists_one(g, g == f))', FAMILIES_UNIQUE_MESSAGE)),
    }),
  ),
  mtu: Type.Optional(Int32({ default: DEFAULT_MTU, minimum: MTU_MIN, maximum: MTU_MAX })),
});

export const NetworkStatus = Type.Object(
  {
    conditions: Type.Optional(Conditions()),
    ipam: Type.Optional(
      Type.Object({
        ipv6Prefix: Type.Optional(Type.String({ description: 'The /48 held for the network.' })),
        ipv6PrefixRef: Type.Optional(NetworkPrefixRef),
      }),
    ),
  },
  { default: seededStatus([NetworkConditionType.Ready]) },
);

export const NetworkSchema = Type.Object(
  { spec: NetworkSpec, status: Type.Optional(NetworkStatus) },
  { description: "A project's network: the address families and MTU every presence of it carries." },
);
export type Network = TypedObject<typeof NetworkSchema>;

export const networkKind = defineKind({
  group: NETWORKING_GROUP,
  version: NETWORKING_VERSION,
  kind: 'Network',
  plural: 'networks',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [
    fieldColumn('IPv6Prefix', '.status.ipam.ipv6Prefix'),
    conditionStatusColumn('Ready'),
    conditionReasonColumn('Reason', 'Ready'),
    ageColumn(),
    fieldColumn('IPFamilies', '.spec.ipFamilies', 'string', 1),
    fieldColumn('IPAM', '.spec.ipam.mode', 'string', 1),
    fieldColumn('MTU', '.spec.mtu', 'integer', 1),
  ],
  schema: NetworkSchema,
});
