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
 *   not older than the window; older resume points are refused (`Expired`, 410);
 * - a stored object's repeated strings are interned (interned-strings.ts): the objects of every
 *   plane in the thread, and their history, share one copy of each value they repeat;
 * - the window also holds at most `historyBytes` of encoded objects, so large objects shorten it
 *   instead of growing memory and disk; a durable backend loads only that window and compacts
 *   what lies before it. Each event counts its object's encoded size, twice when the event has a
 *   previous state: that is a version of the same object, taken to be of the same size rather
 *   than measured again or remembered for every stored object (a map of sizes by object was
 *   5.6 MiB of the server's heap at 3,000 bindings; bench/README.md, session 24);
 * - and it holds no event older than `historyAgeMs` (75 s by default) beyond its last
 *   `HISTORY_MINIMUM` events: what a burst writes does not stay in memory, old versions and all,
 *   for the next 10,000 writes of the plane. kube-apiserver's watch cache likewise keeps 75 s of
 *   events and at least 100; a watcher resumes from its last event or bookmark (every 60 s,
 *   handlers/watch.ts), and one that comes back later relists, as after any 410. Events
 *   restored from a backend count as written when they are loaded.
 *
 * Worked example (historyLimit 3): writes at revisions 5, 6, 7, 8 leave events 6, 7, 8 in the
 * window and `compactedThrough` = 5. A resume from 5 replays 6, 7, 8; a resume from 4 would
 * need event 5, which is gone, so it answers `too old resource version: 4 (6)`.
 *
 * Group commit (`groupCommit`, for a durable backend): a write is applied to memory and told to
 * listeners at once, as above, but handed to the backend later, together with every other write
 * made before the loop's next check phase (`setImmediate`) — one storage transaction, one fsync
 * for all of them. What waits for durability is whoever would let the write out of the process:
 * `whenDurable` calls back once every write made so far is stored (the API server holds each
 * response and watch chunk until then, durable-response.ts). When the backend refuses a batch,
 * its writes are undone in memory (objects, revision, history) and the callbacks hear `false`.
 * Worked example: three handlers write at revisions 7, 8, 9 in one poll phase; the flush stores
 * 7–9 in one transaction; then the three responses go out. A handler writing at 10 while that
 * flush's fsync blocks the loop is served in the next poll phase and flushed with its peers.
 * Caveat (group commit): listeners inside the process (lifecycle controllers, the catalog) hear
 * of a write before it is durable; if its batch is then refused they may have acted on it.
 *
 * Caveat: the log is synchronous on purpose. Node runs one request at a time between awaits, so
 * a read-check-write sequence in a handler is atomic as long as it does not await in between.
 */
import { internStringsSince } from '../../apis/common/interned-strings.ts';
import { tooOldResourceVersion } from '../errors.ts';
import { encodedSize } from '../limits.ts';
import type { KubeObject } from '../objects.ts';

/** Default bytes of the window: enough for 10,000 events of small objects, not for 150 huge ones. */
export const DEFAULT_HISTORY_BYTES = 64 * 1024 * 1024;

/** Default age past which events leave the window (kube-apiserver's watch cache keeps 75 s). */
export const DEFAULT_HISTORY_AGE_MS = 75_000;

/** Events the window keeps whatever their age (kube-apiserver's default watch cache size). */
export const HISTORY_MINIMUM = 100;

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

/** How much history the log keeps: at most `events` events holding at most `bytes`. */
export interface HistoryWindow {
  events: number;
  bytes: number;
}

/** Where a durable plane keeps its log. Every call must be durable when it returns. */
export interface LogBackend {
  /** The stored state; history older than `window` may be compacted first, and left out. */
  load(window: HistoryWindow): {
    revision: number;
    compactedThrough: number;
    objects: StoredEvent[];
    history: StoredEvent[];
  };
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
  /** `object`'s encoded size when the caller has just measured it (spares encoding it again). */
  encodedSize?: number;
}

/**
 * The encoded size of `object` once its `metadata.resourceVersion` is `revision`, from the size
 * of `object` itself: the two encodings differ only in that one field (the stored object is
 * `object` with new metadata, the same keys in the same order). Undefined when that cannot be
 * told exactly (a resourceVersion that is not digits, or no name to follow).
 */
export function sizeWithRevision(object: KubeObject, size: number, revision: string): number | undefined {
  const metadata = object.metadata;
  const before: unknown = metadata.resourceVersion;
  if (typeof before === 'string')
    return /^\d*$/.test(before) ? size - before.length + revision.length : undefined;
  // `,"resourceVersion":"<revision>"` after the name (a string, so it is encoded before it).
  if (before === undefined && typeof metadata.name === 'string') return size + 21 + revision.length;
  return undefined;
}

export class RevisionLog {
  private current = 0;
  private compactedThrough = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private history: StoredEvent[] = [];
  /** Encoded bytes of each history event, parallel to `history`, and their sum. */
  private historySizes: number[] = [];
  private historyTotal = 0;
  /** When each history event was written (ms, from `now`), parallel to `history`. */
  private historyTimes: number[] = [];
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly everything = new Set<Listener>();

  /** Group commit: writes not yet handed to the backend, oldest first. */
  private unflushed: StoredEvent[] = [];
  private flushScheduled = false;
  private durableWaiters: ((durable: boolean) => void)[] = [];
  /** Group commit: a compaction point not yet handed to the backend. */
  private compactPending = 0;
  /** Set on a degraded plane: every write throws it, before anything changes. */
  readOnly?: Error;

  constructor(
    private readonly historyLimit = 10_000,
    private readonly backend?: LogBackend,
    private readonly historyBytes = DEFAULT_HISTORY_BYTES,
    /** Batch durable writes (see the module comment); only with a backend. */
    readonly groupCommit = false,
    private readonly historyAgeMs = DEFAULT_HISTORY_AGE_MS,
    private readonly now: () => number = Date.now,
  ) {
    if (backend) this.restore(backend);
    if (!backend) this.groupCommit = false;
  }

  /** Whether some write is applied in memory but not yet stored by the backend. */
  get hasUnflushed(): boolean {
    return this.unflushed.length > 0;
  }

  /**
   * Calls `done(true)` once every write made so far is stored — at once when none waits — or
   * `done(false)` if the backend refused them (they are undone).
   */
  whenDurable(done: (durable: boolean) => void): void {
    if (this.unflushed.length === 0) done(true);
    else this.durableWaiters.push(done);
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
    if (this.readOnly) throw this.readOnly;
    const events: StoredEvent[] = [];
    /** Each event's object's encoded size, when the caller measured it (else measured at commit). */
    const sizes: (number | undefined)[] = [];
    const pending = new Map<string, KubeObject | undefined>();
    const current = (resource: string, key: string) => {
      const id = `${resource}|${key}`;
      return pending.has(id) ? pending.get(id) : this.get(resource, key);
    };
    const results = changes.map(({ resource, key, object, encodedSize: size }) => {
      const previous = current(resource, key);
      if (!object && !previous) return undefined;
      const revision = this.current + events.length + 1;
      const resourceVersion = String(revision);
      // An object that already carries its revision is stored as it is (the write path gives it
      // its revision to encode it once, writes.ts): a copy would be equal to it.
      const stored: KubeObject =
        object?.metadata.resourceVersion === resourceVersion
          ? object
          : { ...(object ?? previous!), metadata: { ...(object ?? previous!).metadata, resourceVersion } };
      sizes.push(object && size !== undefined ? sizeWithRevision(object, size, resourceVersion) : undefined);
      const type = !object ? 'DELETED' : previous ? 'MODIFIED' : 'ADDED';
      events.push({ revision, type, resource, key, object: stored, previous });
      pending.set(`${resource}|${key}`, object ? stored : undefined);
      return stored;
    });
    if (events.length > 0) this.commit(events, sizes);
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
    this.flush();
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

  private commit(events: StoredEvent[], sizes: (number | undefined)[]): void {
    if (this.groupCommit) {
      this.unflushed.push(...events);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    } else this.backend?.append(events);
    const time = this.now();
    events.forEach((event, i) => {
      this.current = event.revision;
      this.apply(event);
      this.pushHistory(event, time, sizes[i]);
    });
    if (this.windowOverflows(time)) this.trimHistory(time);
    for (const event of events) {
      const set = this.listeners.get(event.resource);
      if (set) for (const listener of [...set]) listener(event);
      for (const listener of [...this.everything]) listener(event);
    }
  }

  private apply(event: StoredEvent): void {
    internStringsSince(event.object, event.previous);
    let all = this.objects.get(event.resource);
    if (!all) this.objects.set(event.resource, (all = new Map<string, KubeObject>()));
    if (event.type === 'DELETED') all.delete(event.key);
    else all.set(event.key, event.object);
  }

  /** Adds `event` to the window; `objectSize`, its object's encoded size, is measured if not given. */
  private pushHistory(event: StoredEvent, time: number, objectSize?: number): void {
    const size = (objectSize ?? encodedSize(event.object)) * (event.previous ? 2 : 1);
    this.history.push(event);
    this.historySizes.push(size);
    this.historyTimes.push(time);
    this.historyTotal += size;
  }

  /**
   * Whether the window is due a trim: past its bytes, or past its count or age by a quarter (so
   * that a trim, which copies the window, happens once per quarter of it, not at every write).
   */
  private windowOverflows(time: number): boolean {
    return (
      this.historyTotal > this.historyBytes ||
      this.history.length > this.historyLimit * 1.25 ||
      (this.history.length > HISTORY_MINIMUM && this.historyTimes[0] < time - this.historyAgeMs * 1.25)
    );
  }

  /**
   * Drops the oldest events until at most `historyLimit` holding at most `historyBytes` remain,
   * none older than `historyAgeMs` unless among the last `HISTORY_MINIMUM`.
   */
  private trimHistory(time: number): void {
    const length = this.history.length;
    let drop = Math.max(0, length - this.historyLimit);
    let total = this.historyTotal;
    for (let i = 0; i < drop; i++) total -= this.historySizes[i];
    while (drop < length && total > this.historyBytes) total -= this.historySizes[drop++];
    const oldest = time - this.historyAgeMs;
    while (drop < length - HISTORY_MINIMUM && this.historyTimes[drop] < oldest)
      total -= this.historySizes[drop++];
    if (drop === 0) return;
    this.compactedThrough = this.history[drop - 1].revision;
    this.history = this.history.slice(drop);
    this.historySizes = this.historySizes.slice(drop);
    this.historyTimes = this.historyTimes.slice(drop);
    this.historyTotal = total;
    if (this.groupCommit) this.compactPending = this.compactedThrough;
    else this.backend?.compact(this.compactedThrough);
  }

  /** Group commit: stores every unflushed write in one backend call, then tells the waiters. */
  private flush(): void {
    this.flushScheduled = false;
    const events = this.unflushed;
    if (events.length === 0) return;
    this.unflushed = [];
    const waiters = this.durableWaiters;
    this.durableWaiters = [];
    let durable = true;
    try {
      this.backend!.append(events);
    } catch (err) {
      durable = false;
      this.undo(events);
      this.compactPending = Math.min(this.compactPending, this.current);
      this.onRefused?.(err, events.length);
    }
    if (durable && this.compactPending > 0) {
      // Never past what is stored: a compaction point inside the batch waits for its events.
      this.backend!.compact(this.compactPending);
      this.compactPending = 0;
    }
    for (const waiter of waiters) waiter(durable);
  }

  /** Told when the backend refuses a batch (group commit), for the server's log. */
  onRefused?: (err: unknown, writes: number) => void;

  /** Takes back a refused batch: objects, revision and history as before its first write. */
  private undo(events: StoredEvent[]): void {
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i];
      const all = this.objects.get(event.resource);
      if (event.previous) all?.set(event.key, event.previous);
      else all?.delete(event.key);
    }
    const first = events[0].revision;
    this.current = first - 1;
    // History is in revision order: the batch is its tail.
    let keep = this.history.length;
    while (keep > 0 && this.history[keep - 1].revision >= first)
      this.historyTotal -= this.historySizes[--keep];
    this.history = this.history.slice(0, keep);
    this.historySizes = this.historySizes.slice(0, keep);
    this.historyTimes = this.historyTimes.slice(0, keep);
  }

  private restore(backend: LogBackend): void {
    // The in-memory window lets the count reach 1.25 × historyLimit before trimming; so may the file.
    const state = backend.load({ events: Math.ceil(this.historyLimit * 1.25), bytes: this.historyBytes });
    for (const event of state.objects) this.apply(event);
    const time = this.now();
    for (const event of state.history) this.pushHistory(event, time);
    if (this.windowOverflows(time)) this.trimHistory(time);
    this.current = state.revision;
    this.compactedThrough = state.compactedThrough;
  }
}
