/**
 * Triggers map informer events to controller keys; predicates filter the events first.
 *
 * - `forObject`: each event of the informer wakes the key of its object.
 * - `owns`: each event of an object whose controller owner is of the given kind wakes the key
 *   of that owner (owner references are namespace-local, so the owner lives in the object's
 *   namespace and plane); a MODIFIED that changed the owner wakes the old owner too.
 * - `watches`: any informer, on any plane, to any keys the mapper names — how an event in a
 *   project plane wakes a hub key.
 *
 * Guarantees: a trigger subscribes when the controller watches it and unsubscribes exactly
 * once when told (disengaging a plane unsubscribes its informers' triggers); every predicate
 * given to a trigger must pass for an event to map to keys (as controller-runtime's
 * WithPredicates); handlers run after the informer's store reflects the event, so a reconcile
 * started by one sees at least that state.
 */
import type { KubeObject } from '../client/types.ts';
import type { Informer, InformerEvent } from './informer-contract.ts';

/** Starts delivering keys to `enqueue`; returns the unsubscribe. */
export type Trigger<K> = (enqueue: (key: K) => void) => () => void;

export type Predicate<T extends KubeObject = KubeObject> = (event: InformerEvent<T>) => boolean;

type OwnerReference = NonNullable<KubeObject['metadata']['ownerReferences']>[number];

function subscribeFiltered<T extends KubeObject, K>(
  informer: Informer<T>,
  predicates: Predicate<T>[],
  toKeys: (event: InformerEvent<T>) => K[],
): Trigger<K> {
  return (enqueue) =>
    informer.subscribe((event) => {
      if (!predicates.every((predicate) => predicate(event))) return;
      for (const key of toKeys(event)) enqueue(key);
    });
}

export function forObject<T extends KubeObject, K>(
  informer: Informer<T>,
  toKey: (object: T, plane: string) => K,
  ...predicates: Predicate<T>[]
): Trigger<K> {
  return subscribeFiltered(informer, predicates, (event) => [toKey(event.object, informer.plane)]);
}

export function owns<T extends KubeObject, K>(
  informer: Informer<T>,
  ownerKind: string,
  toKey: (owner: OwnerReference, object: T, plane: string) => K,
  ...predicates: Predicate<T>[]
): Trigger<K> {
  const ownerOf = (object: T): OwnerReference | undefined =>
    object.metadata.ownerReferences?.find((ref) => ref.controller === true && ref.kind === ownerKind);
  return subscribeFiltered(informer, predicates, (event) => {
    const keys: K[] = [];
    const owner = ownerOf(event.object);
    if (owner) keys.push(toKey(owner, event.object, informer.plane));
    const previousOwner = event.previous && ownerOf(event.previous);
    if (previousOwner && previousOwner.uid !== owner?.uid) {
      keys.push(toKey(previousOwner, event.previous!, informer.plane));
    }
    return keys;
  });
}

export function watches<T extends KubeObject, K>(
  informer: Informer<T>,
  mapper: (event: InformerEvent<T>, plane: string) => K[],
  ...predicates: Predicate<T>[]
): Trigger<K> {
  return subscribeFiltered(informer, predicates, (event) => mapper(event, informer.plane));
}

/** Passes every ADDED and DELETED, and a MODIFIED only when metadata.generation changed (a spec change). */
export const generationChanged: Predicate = (event) =>
  event.type !== 'MODIFIED' ||
  event.previous === undefined ||
  event.previous.metadata.generation !== event.object.metadata.generation;

/** Passes every ADDED and DELETED, and a MODIFIED only when the labels changed. */
export const labelsChanged: Predicate = (event) =>
  event.type !== 'MODIFIED' ||
  event.previous === undefined ||
  !sameLabels(event.previous.metadata.labels, event.object.metadata.labels);

/** Passes when at least one of `predicates` does. */
export function anyOf<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return (event) => predicates.some((predicate) => predicate(event));
}

function sameLabels(a: Record<string, string> = {}, b: Record<string, string> = {}): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}
