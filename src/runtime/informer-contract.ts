/**
 * The contract between informers (reflector + store, informer.ts) and everything that reacts
 * to them (triggers, controllers).
 *
 * Guarantees: an informer delivers an event to its subscribers only after its store reflects
 * it, so a handler reading the store sees at least that state. `previous` is set on MODIFIED
 * (the object before the change) and may be set on DELETED.
 */
import type { KubeObject, ResourceId } from '../client/types.ts';

export interface InformerEvent<T extends KubeObject = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: T;
  previous?: T;
}

/** A read-only, in-memory view of one (plane, resource). */
export interface ObjectStore<T extends KubeObject = KubeObject> {
  get(namespace: string | undefined, name: string): T | undefined;
  list(namespace?: string): T[];
  byIndex(index: string, value: string): T[];
}

/** A running reflector+store for one (plane, resource); implemented in informer.ts by the other engineer. */
export interface Informer<T extends KubeObject = KubeObject> {
  readonly plane: string; // the plane's name, for keys and logs
  readonly id: ResourceId;
  readonly store: ObjectStore<T>;
  /** Handler runs after the store reflects the event; returns unsubscribe. */
  subscribe(handler: (event: InformerEvent<T>) => void): () => void;
  synced(): Promise<void>;
}
