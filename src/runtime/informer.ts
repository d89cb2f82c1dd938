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
import type { KubeObject, ResourceClient } from '../client/types.ts';
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
  const store = new Store<T>();
  for (const [name, fn] of Object.entries(options.indexes ?? {})) store.addIndex(name, fn);
  const subscribers = new Set<(event: InformerEvent<T>) => void>();
  let stopped = false;

  const tell = (handler: (event: InformerEvent<T>) => void, event: InformerEvent<T>): void => {
    try {
      handler(event);
    } catch (err) {
      options.log.error(
        { err, plane: options.plane, type: event.type, name: event.object.metadata.name },
        'informer subscriber threw',
      );
    }
  };

  const reflector = new Reflector<T>({
    ...options.reflector,
    plane: options.plane,
    client: options.client,
    store,
    clock: options.clock ?? systemClock,
    log: options.log,
    namespace: options.namespace,
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    onChange(event) {
      if (stopped) return;
      for (const handler of [...subscribers]) tell(handler, event);
    },
  });

  const view: ObjectStore<T> = {
    get: (namespace, name) => store.get(namespace, name),
    list: (namespace) => store.list(namespace),
    byIndex: (index, value) => store.byIndex(index, value),
  };

  return {
    plane: options.plane,
    id: options.client.id,
    store: view,
    subscribe(handler) {
      subscribers.add(handler);
      for (const object of store.list())
        if (subscribers.has(handler)) tell(handler, { type: 'ADDED', object });
      return () => {
        subscribers.delete(handler);
      };
    },
    synced: () => reflector.synced(),
    start: () => reflector.start(),
    async stop() {
      stopped = true;
      await reflector.stop();
    },
    addIndex: (name, fn) => store.addIndex(name, fn),
  };
}
