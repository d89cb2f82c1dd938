/**
 * NetworkContext (apis.md §1.4): a network's presence in one location — one per (project
 * namespace, network, location). The authoritative object lives in the project plane, owned by
 * its Network; the hub and every cell serving the location hold copies carrying spec and labels.
 *
 * Guarantees: `spec.ipFamilies` has no default — an absent list means "not carried yet" and a
 * reader refuses rather than assuming; a new context (and so every copy) is seeded
 * `Ready=Unknown`. `networkContextName` is the one name every plane uses for a pair.
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
import {
  IPFamily,
  LocalNetworkRef,
  LocalSubnetReference,
  LocationReference,
  NetworkPrefixRef,
} from '../../common/refs.ts';
import { Int32, Int64 } from '../../common/schema.ts';
import { NETWORKING_GROUP, NETWORKING_VERSION } from './group.ts';
import { IpamFailureReason } from './ipam-failures.ts';
import { MTU_MAX, MTU_MIN } from './network.ts';

export const NetworkContextConditionType = { IPAMAllocated: 'IPAMAllocated', Ready: 'Ready' } as const;

export const NetworkContextReason = {
  Pending: 'Pending',
  Allocated: 'Allocated',
  Ready: 'Ready',
  ...IpamFailureReason,
} as const;

export const networkContextMessages = {
  allocated: (cidr: string) => `This location is addressed from ${cidr}`,
  rangeOccupied: (ipamMessage: string) =>
    `this location's subnet still has addresses allocated inside it: ${ipamMessage}`,
  needsNoAddressSpace: 'This location needs no address space of its own, so the network is present in it',
  /** `<subject>` of the range messages in ipam-failures.ts. */
  subject: 'this location',
};

/** Project plane, while a /64 is held. */
export const NETWORKCONTEXT_SUBNET_RELEASE_FINALIZER =
  'networking.datumapis.com/networkcontext-subnet-release';
/** Project plane NetworkContexts and Subnets, while a hub copy may exist. */
export const HUB_REPLICATOR_FINALIZER = 'networking.datumapis.com/hub-replicator';
/** Cell copy, while an interface on the network exists in the namespace. */
export const NETWORKCONTEXT_IN_USE_FINALIZER = 'networking.datumapis.com/networkcontext-in-use';

/** The context of `network` in `location`: the same name in the project plane, the hub and cells. */
export function networkContextName(network: string, location: string): string {
  return `${network}-${location}`;
}

export const NetworkContextSpec = Type.Object({
  network: LocalNetworkRef,
  location: LocationReference,
  ipFamilies: Type.Optional(
    Type.Array(IPFamily, {
      description: 'Families the network carries; absent means not carried yet.',
      minItems: 1,
      maxItems: 2,
    }),
  ),
  mtu: Type.Optional(Int32({ minimum: MTU_MIN, maximum: MTU_MAX })),
  networkGeneration: Type.Optional(
    Int64({ description: 'The Network metadata.generation the projected fields were read from.' }),
  ),
});

export const NetworkContextStatus = Type.Object(
  {
    conditions: Type.Optional(Conditions()),
    ipam: Type.Optional(
      Type.Object({
        ipv6SubnetRef: Type.Optional(LocalSubnetReference),
        ipv6ClaimRef: Type.Optional(NetworkPrefixRef),
      }),
    ),
  },
  { default: seededStatus([NetworkContextConditionType.Ready]) },
);

export const NetworkContextSchema = Type.Object(
  { spec: NetworkContextSpec, status: Type.Optional(NetworkContextStatus) },
  { description: "A network's presence in one location." },
);
export type NetworkContext = TypedObject<typeof NetworkContextSchema>;

export const networkContextKind = defineKind({
  group: NETWORKING_GROUP,
  version: NETWORKING_VERSION,
  kind: 'NetworkContext',
  plural: 'networkcontexts',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [
    ageColumn(),
    conditionStatusColumn('Ready'),
    conditionReasonColumn('Reason', 'Ready'),
    fieldColumn('IPv6Subnet', '.status.ipam.ipv6SubnetRef.name'),
  ],
  schema: NetworkContextSchema,
});
