/**
 * Store: the in-memory copy of one (plane, resource) that reconcilers read, keyed by
 * namespace/name, with named indexes.
 *
 * Guarantees:
 * - every index is maintained on every change: after `apply` or `replace` returns, `byIndex`
 *   answers from the new state; an index added late is built over the objects already held;
 * - `list(namespace)` costs in proportion to that namespace's objects, not the store's (a cell's
 *   store of claims holds every project's);
 * - `apply` and `replace` return the events that describe what changed, and nothing else: an
 *   event carrying the resourceVersion already held is a no-op, a deletion of an unknown object
 *   is a no-op, an ADDED for a held object is reported as MODIFIED;
 * - `replace` (a relist) reports the difference between the held state and the listed one:
 *   ADDED for new keys, MODIFIED for changed resourceVersions, DELETED for keys that are gone —
 *   which is how consumers learn of deletions that happened while the watch was away;
 * - a change is atomic: index functions run before anything is modified, so one that throws
 *   leaves the store as it was.
 *
 * Assumes: index functions are pure and fast; callers never mutate the objects they read (the
 * store hands out the objects it holds, not copies).
 *
 * Worked example: the store holds a@3 and b@4; `replace([b@4, c@7])` returns
 * [ADDED c@7, DELETED a@3] — b is unchanged and reported by nobody.
 */
import type { KubeObject } from '../client/types.ts';
import { fileKey, keysOf, unfileKey, type Filed } from './filed-keys.ts';
import type { InformerEvent, ObjectStore } from './informer-contract.ts';

/** The values an object is filed under in one index; none means it is not in that index. */
export type IndexFunction<T> = (object: T) => string[];

/** `<namespace>/<name>`; the namespace is empty for cluster-scoped objects. */
export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

function keyOf(object: KubeObject): string {
  return objectKey(object.metadata.namespace, object.metadata.name ?? '');
}

interface NamedIndex<T> {
  fn: IndexFunction<T>;
  /** index value → keys of the objects filed under it */
  entries: Map<string, Filed>;
  /** key → the value (or values) its object is filed under, to unfile it on change */
  valuesOf: Map<string, string | string[]>;
}

export class Store<T extends KubeObject = KubeObject> implements ObjectStore<T> {
  private readonly objects = new Map<string, T>();
  private readonly indexes = new Map<string, NamedIndex<T>>();
  /** namespace ('' for cluster-scoped objects) → the keys of its objects */
  private readonly namespaces = new Map<string, Filed>();

  get size(): number {
    return this.objects.size;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.objects.get(objectKey(namespace, name));
  }

  /** Every object, or every object of one namespace, ordered by key. */
  list(namespace?: string): T[] {
    const keys = namespace === undefined ? [...this.objects.keys()] : keysOf(this.namespaces.get(namespace));
    return keys.sort().map((key) => this.objects.get(key)!);
  }

  /** The objects an index files under `value`, ordered by key. Throws for an unknown index. */
  byIndex(index: string, value: string): T[] {
    const named = this.indexes.get(index);
    if (!named) throw new Error(`the store has no index named ${index}; add it with addIndex first`);
    return keysOf(named.entries.get(value))
      .sort()
      .map((key) => this.objects.get(key)!);
  }

  /**
   * Adds a named index and files every held object under it. Adding the same function under
   * the same name again is a no-op (so shared informers can be asked twice); a different
   * function under a taken name throws.
   */
  addIndex(name: string, fn: IndexFunction<T>): void {
    const existing = this.indexes.get(name);
    if (existing) {
      if (existing.fn === fn) return;
      throw new Error(`the store already has a different index named ${name}`);
    }
    const named: NamedIndex<T> = { fn, entries: new Map(), valuesOf: new Map() };
    const filed = [...this.objects].map(([key, object]) => [key, unique(fn(object))] as const);
    for (const [key, values] of filed) file(named, key, values);
    this.indexes.set(name, named);
  }

  /** Applies one watch event; returns the change it made, or undefined when it changed nothing. */
  apply(event: InformerEvent<T>): InformerEvent<T> | undefined {
    const key = keyOf(event.object);
    const held = this.objects.get(key);
    if (event.type === 'DELETED') {
      if (!held) return undefined;
      this.remove(key, held);
      return { type: 'DELETED', object: event.object, previous: held };
    }
    if (held && held.metadata.resourceVersion === event.object.metadata.resourceVersion) return undefined;
    this.put(key, event.object);
    if (!held) fileKey(this.namespaces, event.object.metadata.namespace ?? '', key);
    return held
      ? { type: 'MODIFIED', object: event.object, previous: held }
      : { type: 'ADDED', object: event.object };
  }

  /**
   * Makes the store hold exactly `objects` (a fresh list); returns the difference as events:
   * additions and modifications in the list's order, then deletions in key order.
   */
  replace(objects: T[]): InformerEvent<T>[] {
    const listed = new Map(objects.map((object) => [keyOf(object), object]));
    const changes: InformerEvent<T>[] = [];
    for (const object of listed.values()) {
      const change = this.apply({ type: 'ADDED', object });
      if (change) changes.push(change);
    }
    for (const key of [...this.objects.keys()].sort()) {
      if (listed.has(key)) continue;
      const held = this.objects.get(key)!;
      this.remove(key, held);
      changes.push({ type: 'DELETED', object: held, previous: held });
    }
    return changes;
  }

  private put(key: string, object: T): void {
    const filed = [...this.indexes.values()].map((named) => [named, unique(named.fn(object))] as const);
    this.objects.set(key, object);
    for (const [named, values] of filed) {
      if (sameValues(named.valuesOf.get(key), values)) continue;
      unfile(named, key);
      file(named, key, values);
    }
  }

  private remove(key: string, held: T): void {
    this.objects.delete(key);
    for (const named of this.indexes.values()) unfile(named, key);
    unfileKey(this.namespaces, held.metadata.namespace ?? '', key);
  }
}

function unique(values: string[]): string[] {
  return values.length < 2 ? values : [...new Set(values)];
}

/** Whether an object is filed under exactly `values` (unique, in the index function's order). */
function sameValues(held: string | string[] | undefined, values: string[]): boolean {
  if (held === undefined) return values.length === 0;
  if (typeof held === 'string') return values.length === 1 && values[0] === held;
  return held.length === values.length && held.every((value, i) => value === values[i]);
}

function file<T>(named: NamedIndex<T>, key: string, values: string[]): void {
  if (values.length === 0) return;
  named.valuesOf.set(key, values.length === 1 ? values[0] : values);
  for (const value of values) fileKey(named.entries, value, key);
}

function unfile<T>(named: NamedIndex<T>, key: string): void {
  const values = named.valuesOf.get(key);
  if (values === undefined) return;
  if (typeof values === 'string') unfileKey(named.entries, values, key);
  else for (const value of values) unfileKey(named.entries, value, key);
  named.valuesOf.delete(key);
}
