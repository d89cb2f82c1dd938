/**
 * The typed client contract every controller, the runtime and the propagation engine use to
 * talk to a plane. Implemented over @kubernetes/client-node 1.4 in resource-client.ts.
 *
 * Guarantees: reads of a missing object return undefined (never throw NotFound); every other
 * refusal throws a typed StatusError (errors.ts) carrying the server's Status.
 */
import type { ObjectMeta } from '../apis/common/meta.ts';
import type { Status } from './errors.ts';

/** The minimum shape of any Kubernetes object. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** Which resource a client addresses. */
export interface ResourceId {
  group: string; // '' for core
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export interface ListOptions {
  namespace?: string; // omitted: all namespaces
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
  continue?: string;
}

export interface WatchOptions {
  namespace?: string;
  resourceVersion: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  labelSelector?: string;
  fieldSelector?: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * One watch event as `watch` delivers it, `(type, object)`: the object itself for a change; for
 * a BOOKMARK an object of the kind carrying only its resourceVersion; for an ERROR the server's
 * Status. A listener that tests `type` first has `object` narrowed to match.
 */
export type WatchEvent<T extends KubeObject> =
  | [type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T]
  | [type: 'BOOKMARK', object: KubeObject]
  | [type: 'ERROR', object: Status];

export interface WatchHandle {
  /** Ends the watch; `done` is then called with no error. */
  abort(): void;
}

export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface WriteOptions {
  fieldManager?: string;
  dryRun?: boolean;
}

export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

export interface ResourceClient<T extends KubeObject = KubeObject> {
  readonly id: ResourceId;
  get(name: string, namespace?: string): Promise<T | undefined>;
  list(options?: ListOptions): Promise<ListResult<T>>;
  create(object: T, options?: WriteOptions): Promise<T>;
  /** PUT; the object's resourceVersion is the precondition (409 → ConflictError). */
  update(object: T, options?: WriteOptions): Promise<T>;
  /** PUT …/status. */
  updateStatus(object: T, options?: WriteOptions): Promise<T>;
  patchMerge(
    name: string,
    namespace: string | undefined,
    patch: unknown,
    options?: WriteOptions & { subresource?: 'status' },
  ): Promise<T>;
  patchJson(
    name: string,
    namespace: string | undefined,
    operations: JsonPatchOperation[],
    options?: WriteOptions & { subresource?: 'status' },
  ): Promise<T>;
  /** Server-side apply (application/apply-patch+yaml). */
  apply(object: T, options: { fieldManager: string; force?: boolean; subresource?: 'status' }): Promise<T>;
  /** Deletes; a missing object is not an error (returns false). */
  delete(name: string, namespace?: string, options?: DeleteOptions): Promise<boolean>;
  /**
   * Opens a watch. `onEvent` gets each event in order (BOOKMARK and ERROR included, ERROR with
   * the Status as object); `done` is called exactly once when the stream ends, with the error
   * if it broke (an HTTP 410 yields a GoneError).
   */
  watch(
    options: WatchOptions,
    onEvent: (...event: WatchEvent<T>) => void,
    done: (err?: Error) => void,
  ): Promise<WatchHandle>;
}
