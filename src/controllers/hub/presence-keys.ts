/**
 * Presence keys and the hub NetworkBinding indexes they are found through (controllers.md §5).
 *
 * A key is `(hubNamespace, network, location)`, taken from a binding's `spec` — never from its
 * labels, and never from the derived context name, so two pairs that derive one name stay two
 * keys. Every index is derived from `spec` too:
 * - `byPair` (ns, network, location) — the candidates of a key;
 * - `byNetwork` (ns, network), `byLocation` (ns, location) — what a Network or LocationBinding
 *   event in the project plane wakes;
 * - `byContextName` (ns, `<network>-<location>`) — the pair owning a context and every pair
 *   whose name collides with it;
 * - `byNamespace` (ns) — what a hub Namespace event wakes.
 * Index values are JSON arrays, so no name can make two different tuples collide. The index
 * functions are module-level constants (a shared informer accepts a name twice only with the
 * same function).
 */
import { networkContextName, type NetworkContext } from '../../apis/networking/v1alpha/network-context.ts';
import type { NetworkBinding } from '../../apis/networking/v1alpha/network-binding.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';
import { tupleKey, type KeyOf } from '../../runtime/tuple-key.ts';

const presenceKey = tupleKey('a presence key', ['hubNamespace', 'network', 'location']);
export type PresenceKey = KeyOf<typeof presenceKey>;
export const presenceKeyString = presenceKey.toString;
export const presenceKeyFromString = presenceKey.fromString;

export function keyOfBinding(binding: NetworkBinding): PresenceKey {
  return {
    hubNamespace: binding.metadata.namespace ?? '',
    network: binding.spec.network.name,
    location: binding.spec.location.name,
  };
}

/** The key of the pair a project-plane context serves, in hub namespace `hubNamespace`. */
export function keyOfContext(hubNamespace: string, context: NetworkContext): PresenceKey {
  return { hubNamespace, network: context.spec.network.name, location: context.spec.location.name };
}

export const BY_PAIR = 'byPair';
export const BY_NETWORK = 'byNetwork';
export const BY_LOCATION = 'byLocation';
export const BY_CONTEXT_NAME = 'byContextName';
export const BY_NAMESPACE = 'byNamespace';

const tuple = (...parts: string[]): string => JSON.stringify(parts);

export const pairValue = (key: PresenceKey): string => tuple(key.hubNamespace, key.network, key.location);
export const networkValue = (hubNamespace: string, network: string): string => tuple(hubNamespace, network);
export const locationValue = (hubNamespace: string, location: string): string =>
  tuple(hubNamespace, location);
export const contextNameValue = (hubNamespace: string, context: string): string =>
  tuple(hubNamespace, context);
export const namespaceValue = (hubNamespace: string): string => hubNamespace;

const byPair = (binding: NetworkBinding): string[] => [pairValue(keyOfBinding(binding))];
const byNetwork = (binding: NetworkBinding): string[] => {
  const key = keyOfBinding(binding);
  return [networkValue(key.hubNamespace, key.network)];
};
const byLocation = (binding: NetworkBinding): string[] => {
  const key = keyOfBinding(binding);
  return [locationValue(key.hubNamespace, key.location)];
};
const byContextName = (binding: NetworkBinding): string[] => {
  const key = keyOfBinding(binding);
  return [contextNameValue(key.hubNamespace, networkContextName(key.network, key.location))];
};
const byNamespace = (binding: NetworkBinding): string[] => [
  namespaceValue(keyOfBinding(binding).hubNamespace),
];

/** The indexes of the hub NetworkBinding informer. */
export const bindingIndexes = {
  [BY_PAIR]: byPair,
  [BY_NETWORK]: byNetwork,
  [BY_LOCATION]: byLocation,
  [BY_CONTEXT_NAME]: byContextName,
  [BY_NAMESPACE]: byNamespace,
};

/** The distinct keys of the bindings an index files under `value`. */
export function keysIn(bindings: ObjectStore<NetworkBinding>, index: string, value: string): PresenceKey[] {
  const keys = new Map<string, PresenceKey>();
  for (const binding of bindings.byIndex(index, value)) {
    const key = keyOfBinding(binding);
    keys.set(presenceKeyString(key), key);
  }
  return [...keys.values()];
}
