/**
 * An in-memory resource of a pretend API server, for runtime tests on fake time: revisions, a
 * watch window that can be compacted (410), paginated lists, optimistic concurrency, and knobs
 * to break things (take a client offline, fail the next lists, end every open watch).
 *
 * Every `client()` shares the same objects, like several processes talking to one server; each
 * client can be taken offline on its own. Only get, list, create, update, delete and watch are
 * served; the patch verbs throw.
 */
import { statusErrorFrom, type StatusError } from '../../src/client/errors.ts';
import type {
  KubeObject,
  ListOptions,
  ListResult,
  ResourceClient,
  ResourceId,
  WatchEventType,
  WatchHandle,
  WatchOptions,
} from '../../src/client/types.ts';

interface Change {
  revision: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}

interface OpenWatch {
  options: WatchOptions;
  onEvent: (type: WatchEventType, object: any) => void;
  done: (err?: Error) => void;
}

export function statusError(code: number, reason: string, message = reason): StatusError {
  return statusErrorFrom(code, {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason,
    message,
  });
}

const keyOf = (namespace: string | undefined, name: string): string => `${namespace ?? ''}/${name}`;
const clone = <T>(object: T): T => structuredClone(object);

export class FakeResource<T extends KubeObject = KubeObject> {
  revision = 0;
  private objects = new Map<string, T>();
  private history: Change[] = [];
  private compactedThrough = 0;
  private readonly watches = new Set<OpenWatch>();
  private nextUid = 1;
  readonly listCalls: ListOptions[] = [];
  readonly watchCalls: WatchOptions[] = [];

  constructor(readonly id: ResourceId) {}

  /** Writes as the server would (no precondition); returns the stored object. */
  put(object: T): T {
    const key = keyOf(object.metadata.namespace, object.metadata.name!);
    const previous = this.objects.get(key);
    const stored = clone(object);
    stored.metadata.resourceVersion = String(++this.revision);
    stored.metadata.uid ??= previous?.metadata.uid ?? `uid-${this.nextUid++}`;
    this.objects.set(key, stored);
    this.record({ revision: this.revision, type: previous ? 'MODIFIED' : 'ADDED', object: stored });
    return clone(stored);
  }

  remove(namespace: string | undefined, name: string): boolean {
    const key = keyOf(namespace, name);
    const previous = this.objects.get(key);
    if (!previous) return false;
    this.objects.delete(key);
    const object = clone(previous);
    object.metadata.resourceVersion = String(++this.revision);
    this.record({ revision: this.revision, type: 'DELETED', object });
    return true;
  }

  read(namespace: string | undefined, name: string): T | undefined {
    const object = this.objects.get(keyOf(namespace, name));
    return object && clone(object);
  }

  all(): T[] {
    return [...this.objects.keys()].sort().map((key) => clone(this.objects.get(key)!));
  }

  /** Forgets every past event: a watch resuming from before now gets 410. */
  compact(): void {
    this.compactedThrough = this.revision;
    this.history = [];
  }

  bookmark(): void {
    for (const watch of [...this.watches])
      watch.onEvent('BOOKMARK', { metadata: { resourceVersion: String(this.revision) } });
  }

  /** Ends every open watch: cleanly, or with `err`. */
  endWatches(err?: Error): void {
    for (const watch of [...this.watches]) {
      this.watches.delete(watch);
      watch.done(err);
    }
  }

  get openWatches(): number {
    return this.watches.size;
  }

  client(): FakeResourceClient<T> {
    return new FakeResourceClient(this);
  }

  /** @internal */
  list(options: ListOptions): ListResult<T> {
    this.listCalls.push(options);
    let start = 0;
    let revision = this.revision;
    if (options.continue) {
      const token = JSON.parse(options.continue) as { revision: number; start: number };
      if (token.revision < this.compactedThrough) throw statusError(410, 'Expired', 'continue token too old');
      ({ revision, start } = token);
    }
    const matching = this.all().filter(
      (o) => options.namespace === undefined || o.metadata.namespace === options.namespace,
    );
    const end = options.limit ? start + options.limit : matching.length;
    const result: ListResult<T> = { items: matching.slice(start, end), resourceVersion: String(revision) };
    if (end < matching.length) result.continue = JSON.stringify({ revision, start: end });
    return result;
  }

  /** @internal */
  watch(options: WatchOptions, onEvent: OpenWatch['onEvent'], done: OpenWatch['done']): WatchHandle {
    this.watchCalls.push(options);
    const after = Number(options.resourceVersion);
    if (after < this.compactedThrough) {
      onEvent('ERROR', {
        kind: 'Status',
        code: 410,
        reason: 'Expired',
        message: `too old resource version: ${after}`,
      });
      done();
      return { abort: () => undefined };
    }
    const watch: OpenWatch = { options, onEvent, done };
    for (const change of this.history)
      if (change.revision > after && this.matches(watch, change)) onEvent(change.type, clone(change.object));
    this.watches.add(watch);
    return {
      abort: () => {
        if (this.watches.delete(watch)) done();
      },
    };
  }

  /** @internal */
  nextUidFor(): string {
    return `uid-${this.nextUid++}`;
  }

  private matches(watch: OpenWatch, change: Change): boolean {
    return (
      watch.options.namespace === undefined || change.object.metadata.namespace === watch.options.namespace
    );
  }

  private record(change: Change): void {
    this.history.push(change);
    for (const watch of [...this.watches])
      if (this.matches(watch, change)) watch.onEvent(change.type, clone(change.object));
  }
}

export class FakeResourceClient<T extends KubeObject = KubeObject> implements ResourceClient<T> {
  /** When set, every call fails with this error (a partition between this client and the server). */
  offline?: Error;
  /** Errors the next list calls throw, in order. */
  readonly listFailures: Error[] = [];

  constructor(readonly resource: FakeResource<T>) {}

  get id(): ResourceId {
    return this.resource.id;
  }

  async get(name: string, namespace?: string): Promise<T | undefined> {
    this.check();
    return this.resource.read(namespace, name);
  }

  async list(options: ListOptions = {}): Promise<ListResult<T>> {
    this.check();
    const failure = this.listFailures.shift();
    if (failure) throw failure;
    return this.resource.list(options);
  }

  async create(object: T): Promise<T> {
    this.check();
    if (this.resource.read(object.metadata.namespace, object.metadata.name!)) {
      throw statusError(409, 'AlreadyExists', `${object.metadata.name} already exists`);
    }
    return this.resource.put({
      ...object,
      metadata: { ...object.metadata, uid: this.resource.nextUidFor() },
    });
  }

  async update(object: T): Promise<T> {
    this.check();
    const held = this.resource.read(object.metadata.namespace, object.metadata.name!);
    if (!held) throw statusError(404, 'NotFound', `${object.metadata.name} not found`);
    if (object.metadata.resourceVersion !== held.metadata.resourceVersion) {
      throw statusError(
        409,
        'Conflict',
        `the object has been modified; please apply your changes to the latest version`,
      );
    }
    return this.resource.put(object);
  }

  async delete(name: string, namespace?: string): Promise<boolean> {
    this.check();
    return this.resource.remove(namespace, name);
  }

  async watch(
    options: WatchOptions,
    onEvent: (type: WatchEventType, object: any) => void,
    done: (err?: Error) => void,
  ): Promise<WatchHandle> {
    if (this.offline) {
      done(this.offline);
      return { abort: () => undefined };
    }
    return this.resource.watch(options, onEvent, done);
  }

  updateStatus(): Promise<T> {
    return Promise.reject(new Error('the fake serves no updateStatus'));
  }

  patchMerge(): Promise<T> {
    return Promise.reject(new Error('the fake serves no patchMerge'));
  }

  patchJson(): Promise<T> {
    return Promise.reject(new Error('the fake serves no patchJson'));
  }

  apply(): Promise<T> {
    return Promise.reject(new Error('the fake serves no apply'));
  }

  private check(): void {
    if (this.offline) throw this.offline;
  }
}
