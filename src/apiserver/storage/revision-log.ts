/**
 * The revision log of one plane: etcd's MVCC model reduced to what the API server needs.
 *
 * Guarantees:
 * - every write takes the next plane-wide revision, which becomes the object's `resourceVersion`;
 *   revisions are strictly increasing and never reused, also across restarts of a durable backend;
 * - a write is visible to readers and delivered to listeners before the call returns, and it is
 *   handed to the backend first: when the backend throws, nothing changed;
 * - `transact` commits several changes at once: consecutive revisions, one backend call (one
 *   storage transaction), and listeners hear of them only once all are applied;
 * - the last `historyLimit` events are kept, so a watch can resume strictly after any revision
 *   not older than the window; older resume points are refused (`Expired`, 410).
 *
 * Worked example (historyLimit 3): writes at revisions 5, 6, 7, 8 leave events 6, 7, 8 in the
 * window and `compactedThrough` = 5. A resume from 5 replays 6, 7, 8; a resume from 4 would
 * need event 5, which is gone, so it answers `too old resource version: 4 (6)`.
 *
 * Caveat: the log is synchronous on purpose. Node runs one request at a time between awaits, so
 * a read-check-write sequence in a handler is atomic as long as it does not await in between.
 */
import { tooOldResourceVersion } from '../errors.ts';
import type { KubeObject } from '../objects.ts';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  revision: number;
  type: EventType;
  /** `<group>/<resource>` of the stored kind, e.g. `/namespaces` or `example.com/widgets`. */
  resource: string;
  /** `<namespace>/<name>`; the namespace is empty for cluster-scoped objects. */
  key: string;
  /** The object after the write; for DELETED its last state carrying the deletion revision. */
  object: KubeObject;
  /** The object before the write (absent for ADDED). */
  previous?: KubeObject;
}

/** Where a durable plane keeps its log. Every call must be durable when it returns. */
export interface LogBackend {
  load(): { revision: number; compactedThrough: number; objects: StoredEvent[]; history: StoredEvent[] };
  /** Stores the events of one transaction, all or none. */
  append(events: StoredEvent[]): void;
  /** Called after the in-memory window dropped events up to `revision`. */
  compact(revision: number): void;
  close(): void;
}

export type Listener = (event: StoredEvent) => void;

/** One change of a transaction: `object` to store, or absent to remove. */
export interface Change {
  resource: string;
  key: string;
  object?: KubeObject;
}

export class RevisionLog {
  private current = 0;
  private compactedThrough = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private history: StoredEvent[] = [];
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly everything = new Set<Listener>();

  constructor(
    private readonly historyLimit = 10_000,
    private readonly backend?: LogBackend,
  ) {
    if (backend) this.restore(backend);
  }

  get revision(): number {
    return this.current;
  }

  /** The oldest revision a watch may resume from. */
  get oldestResumable(): number {
    return this.compactedThrough;
  }

  get(resource: string, key: string): KubeObject | undefined {
    return this.objects.get(resource)?.get(key);
  }

  /** Every object of a resource, optionally in one namespace, ordered by namespace then name. */
  list(resource: string, namespace?: string): KubeObject[] {
    const all = this.objects.get(resource);
    if (!all) return [];
    const keys = [...all.keys()].filter((k) => namespace === undefined || k.startsWith(`${namespace}/`));
    return keys.sort().map((k) => all.get(k)!);
  }

  /** Every resource that holds (or held) objects in this plane. */
  resources(): string[] {
    return [...this.objects.keys()];
  }

  count(resource: string): number {
    return this.objects.get(resource)?.size ?? 0;
  }

  /** Stores `object` at the next revision; returns the object with its new resourceVersion. */
  put(resource: string, key: string, object: KubeObject): KubeObject {
    return this.transact([{ resource, key, object }])[0]!;
  }

  /** Removes the object; returns its last state carrying the deletion revision. */
  remove(resource: string, key: string): KubeObject | undefined {
    if (!this.get(resource, key)) return undefined;
    return this.transact([{ resource, key }])[0];
  }

  /**
   * Applies `changes` atomically, each at the next revision, in order. Returns, per change, the
   * stored object (or the last state of a removed one; undefined when it removed nothing).
   */
  transact(changes: Change[]): (KubeObject | undefined)[] {
    const events: StoredEvent[] = [];
    const pending = new Map<string, KubeObject | undefined>();
    const current = (resource: string, key: string) => {
      const id = `${resource}|${key}`;
      return pending.has(id) ? pending.get(id) : this.get(resource, key);
    };
    const results = changes.map(({ resource, key, object }) => {
      const previous = current(resource, key);
      if (!object && !previous) return undefined;
      const revision = this.current + events.length + 1;
      const stored: KubeObject = {
        ...(object ?? previous!),
        metadata: { ...(object ?? previous!).metadata, resourceVersion: String(revision) },
      };
      const type = !object ? 'DELETED' : previous ? 'MODIFIED' : 'ADDED';
      events.push({ revision, type, resource, key, object: stored, previous });
      pending.set(`${resource}|${key}`, object ? stored : undefined);
      return stored;
    });
    if (events.length > 0) this.commit(events);
    return results;
  }

  /**
   * Delivers every event of `resource` after revision `after`, then each later one as it
   * happens, synchronously and in revision order. Returns the unsubscribe function.
   */
  watch(resource: string, after: number, listener: Listener): () => void {
    if (after < this.compactedThrough) throw tooOldResourceVersion(after, this.compactedThrough + 1);
    for (const event of this.eventsAfter(after)) {
      if (event.resource === resource) listener(event);
    }
    let set = this.listeners.get(resource);
    if (!set) this.listeners.set(resource, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /** Delivers every later event of every resource; for the server's own lifecycle controllers. */
  subscribeAll(listener: Listener): () => void {
    this.everything.add(listener);
    return () => {
      this.everything.delete(listener);
    };
  }

  watcherCount(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  close(): void {
    this.listeners.clear();
    this.everything.clear();
    this.backend?.close();
  }

  private eventsAfter(after: number): StoredEvent[] {
    let lo = 0;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.history[mid].revision <= after) lo = mid + 1;
      else hi = mid;
    }
    return this.history.slice(lo);
  }

  private commit(events: StoredEvent[]): void {
    this.backend?.append(events);
    for (const event of events) {
      this.current = event.revision;
      this.apply(event);
      this.history.push(event);
    }
    if (this.history.length > this.historyLimit * 1.25) this.trimHistory();
    for (const event of events) {
      const set = this.listeners.get(event.resource);
      if (set) for (const listener of [...set]) listener(event);
      for (const listener of [...this.everything]) listener(event);
    }
  }

  private apply(event: StoredEvent): void {
    let all = this.objects.get(event.resource);
    if (!all) this.objects.set(event.resource, (all = new Map<string, KubeObject>()));
    if (event.type === 'DELETED') all.delete(event.key);
    else all.set(event.key, event.object);
  }

  private trimHistory(): void {
    const drop = this.history.length - this.historyLimit;
    this.compactedThrough = this.history[drop - 1].revision;
    this.history = this.history.slice(drop);
    this.backend?.compact(this.compactedThrough);
  }

  private restore(backend: LogBackend): void {
    const state = backend.load();
    for (const event of state.objects) this.apply(event);
    this.history = state.history;
    this.current = state.revision;
    this.compactedThrough = state.compactedThrough;
  }
}
