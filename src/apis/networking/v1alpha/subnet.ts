/**
 * Subnet (apis.md §1.5): the range a network is addressed from in one location. netpresence
 * publishes one per IPv6 context, named `<context>-ipv6`, in the context's namespace.
 *
 * Guarantees: a new Subnet (and every hub or cell copy) is seeded `Allocated`, `Programmed` and
 * `Ready` Unknown. `startAddress` and `prefixLength` are not checked at admission; a reader
 * judges them (the gateway rule, controllers.md §10). `status.startAddress` present but empty
 * is meaningful and is kept.
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
import { IPFamily, LocalNetworkContextRef, LocationReference } from '../../common/refs.ts';
import { Int32 } from '../../common/schema.ts';
import { NETWORKING_GROUP, NETWORKING_VERSION } from './group.ts';

export const SubnetConditionType = {
  Allocated: 'Allocated',
  Programmed: 'Programmed',
  Ready: 'Ready',
} as const;

export const SubnetReason = {
  Pending: 'Pending',
  PrefixAllocated: 'PrefixAllocated',
  Ready: 'Ready',
  NotProgrammed: 'NotProgrammed',
} as const;

export const subnetMessages = {
  allocated: (cidr: string) => `The subnet is allocated ${cidr}`,
  ready: 'The subnet is allocated and programmed',
  notProgrammed: 'Subnet is not yet programmed',
};

/** The class netpresence writes on every Subnet it publishes. */
export const PRIVATE_SUBNET_CLASS = 'private';

/** The IPv6 Subnet of context `context`: `<network>-<location>-ipv6`. */
export function ipv6SubnetName(context: string): string {
  return `${context}-ipv6`;
}

export const SubnetSpec = Type.Object({
  subnetClass: Type.String(),
  networkContext: LocalNetworkContextRef,
  location: LocationReference,
  ipFamily: IPFamily,
  startAddress: Type.String({ description: "The range's network address, for example fd20::." }),
  prefixLength: Int32({ description: 'For example 64.' }),
});

export const SubnetStatus = Type.Object(
  {
    startAddress: Type.Optional(Type.String()),
    prefixLength: Type.Optional(Int32()),
    conditions: Type.Optional(Conditions()),
  },
  {
    default: seededStatus([
      SubnetConditionType.Allocated,
      SubnetConditionType.Programmed,
      SubnetConditionType.Ready,
    ]),
  },
);

export const SubnetSchema = Type.Object(
  { spec: SubnetSpec, status: Type.Optional(SubnetStatus) },
  { description: 'The range a network is addressed from in one location.' },
);
export type Subnet = TypedObject<typeof SubnetSchema>;

export const subnetKind = defineKind({
  group: NETWORKING_GROUP,
  version: NETWORKING_VERSION,
  kind: 'Subnet',
  plural: 'subnets',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [
    ageColumn(),
    conditionStatusColumn('Ready'),
    conditionReasonColumn('Reason', 'Ready'),
    fieldColumn('Start Address', '.status.startAddress'),
    fieldColumn('Prefix Length', '.status.prefixLength', 'integer'),
  ],
  schema: SubnetSchema,
});
