/**
 * Informer: a Reflector filling a Store with named indexes, and the subscribers told of every
 * change — the one way controllers read a (plane, resource).
 *
 * Guarantees:
 * - a subscriber is called only after the store reflects the change (informer-contract.ts);
 * - a new subscriber is first told of every object already held, as ADDED, synchronously
 *   inside `subscribe` and in key order, then of every later change — so a subscriber that
 *   arrives after the first list misses nothing;
 * - a subscriber that throws is logged and does not keep the others from being told;
 * - `synced()` resolves once the first full list is in the store; `stop()` stops the
 *   reflector (see reflector.ts for what that closes) and subscribers hear nothing after it.
 *
 * Caveat: objects read from the store are shared, never copies: do not mutate them.
 */
import type { Logger } from 'pino';
import type { KubeObject, ResourceClient, ResourceId } from '../client/types.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Informer, InformerEvent, ObjectStore } from './informer-contract.ts';
import { Reflector, type ReflectorSettings } from './reflector.ts';
import { Store, type IndexFunction } from './store.ts';

export interface InformerOptions<T extends KubeObject> {
  plane: string;
  client: ResourceClient<T>;
  log: Logger;
  clock?: Clock;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  indexes?: Record<string, IndexFunction<T>>;
  reflector?: ReflectorSettings;
}

export interface RunningInformer<T extends KubeObject = KubeObject> extends Informer<T> {
  start(): void;
  stop(): Promise<void>;
  /** Adds a named index, built over the objects already held (Store.addIndex). */
  addIndex(name: string, fn: IndexFunction<T>): void;
}

export function createInformer<T extends KubeObject>(options: InformerOptions<T>): RunningInformer<T> {
  return new ReflectedInformer(options);
}

/**
 * The informer as one object with its methods on the prototype: a fleet's controller worker runs
 * tens of thousands of informers, and closures made per informer were about half a KiB each
 * (bench/README.md). Its store is handed out typed as the read-only `ObjectStore`.
 */
class ReflectedInformer<T extends KubeObject> implements RunningInformer<T> {
  readonly plane: string;
  readonly id: ResourceId;
  readonly store: ObjectStore<T>;
  readonly #store = new Store<T>();
  readonly #subscribers = new Set<(event: InformerEvent<T>) => void>();
  readonly #reflector: Reflector<T>;
  readonly #log: Logger;
  #stopped = false;

  constructor(options: InformerOptions<T>) {
    this.plane = options.plane;
    this.id = options.client.id;
    this.store = this.#store;
    this.#log = options.log;
    for (const [name, fn] of Object.entries(options.indexes ?? {})) this.#store.addIndex(name, fn);
    this.#reflector = new Reflector<T>({
      ...options.reflector,
      plane: options.plane,
      client: options.client,
      store: this.#store,
      clock: options.clock ?? systemClock,
      log: options.log,
      namespace: options.namespace,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      onChange: (event) => this.#deliver(event),
    });
  }

  subscribe(handler: (event: InformerEvent<T>) => void): () => void {
    this.#subscribers.add(handler);
    for (const object of this.#store.list())
      if (this.#subscribers.has(handler)) this.#tell(handler, { type: 'ADDED', object });
    return () => {
      this.#subscribers.delete(handler);
    };
  }

  synced(): Promise<void> {
    return this.#reflector.synced();
  }

  start(): void {
    this.#reflector.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#reflector.stop();
  }

  addIndex(name: string, fn: IndexFunction<T>): void {
    this.#store.addIndex(name, fn);
  }

  #deliver(event: InformerEvent<T>): void {
    if (this.#stopped) return;
    for (const handler of [...this.#subscribers]) this.#tell(handler, event);
  }

  #tell(handler: (event: InformerEvent<T>) => void, event: InformerEvent<T>): void {
    try {
      handler(event);
    } catch (err) {
      this.#log.error(
        { err, plane: this.plane, type: event.type, name: event.object.metadata.name },
        'informer subscriber threw',
      );
    }
  }
}
