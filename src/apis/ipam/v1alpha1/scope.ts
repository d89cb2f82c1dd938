/**
 * IPAM scopes (apis.md §2.1): a map from role to an object reference, naming whose range a
 * provisioned pool is, and which range a claim draws from.
 *
 * Guarantees: `networkScope` and `networkLocationScope` are exactly the scopes netpresence's
 * controllers write ("network `vpc`, location `us-central-1`" in the scenarios).
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringMap } from '../../common/schema.ts';

export const ScopeRef = Type.Object({ apiGroup: Type.String(), kind: Type.String(), name: Type.String() });
export type ScopeRef = Static<typeof ScopeRef>;

export type Scope = Record<string, ScopeRef>;

export function ScopeMap(options: { maxProperties?: number; description?: string } = {}) {
  return StringMap(ScopeRef, options);
}

export const ScopeRole = { Network: 'network', Location: 'location' } as const;

const NETWORKING_GROUP = 'networking.datumapis.com';

export function networkScope(network: string): Scope {
  return { [ScopeRole.Network]: { apiGroup: NETWORKING_GROUP, kind: 'Network', name: network } };
}

export function networkLocationScope(network: string, location: string): Scope {
  return {
    ...networkScope(network),
    [ScopeRole.Location]: { apiGroup: NETWORKING_GROUP, kind: 'Location', name: location },
  };
}
