/**
 * The shared reference types of apis.md §1.1 and the address family enum.
 *
 * Guarantees: each schema is exactly the table's shape; a reference never carries a field the
 * table does not list, so a stray `namespace` on a local reference is pruned, never honoured.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './schema.ts';

export const IP_FAMILIES = ['IPv4', 'IPv6'] as const;
export const IPFamily = StringEnum(IP_FAMILIES);
export type IPFamily = Static<typeof IPFamily>;

export const LocationReference = Type.Object({ name: Type.String() });
export type LocationReference = Static<typeof LocationReference>;

export const NetworkRef = Type.Object({
  namespace: Type.Optional(Type.String()),
  name: Type.String(),
});
export type NetworkRef = Static<typeof NetworkRef>;

export const LocalNetworkRef = Type.Object({ name: Type.String() });
export type LocalNetworkRef = Static<typeof LocalNetworkRef>;

export const LocalNetworkContextRef = Type.Object({ name: Type.String() });
export type LocalNetworkContextRef = Static<typeof LocalNetworkContextRef>;

export const LocalSubnetReference = Type.Object({ name: Type.Optional(Type.String()) });
export type LocalSubnetReference = Static<typeof LocalSubnetReference>;

export const NetworkContextRef = Type.Object({ namespace: Type.String(), name: Type.String() });
export type NetworkContextRef = Static<typeof NetworkContextRef>;

/** Names the IPAM objects behind a held range. */
export const NetworkPrefixRef = Type.Object({
  project: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  claimName: Type.Optional(Type.String()),
  poolName: Type.Optional(Type.String()),
});
export type NetworkPrefixRef = Static<typeof NetworkPrefixRef>;

export const LocalNetworkInterfaceRef = Type.Object({ name: Type.String({ minLength: 1, maxLength: 253 }) });
export type LocalNetworkInterfaceRef = Static<typeof LocalNetworkInterfaceRef>;
