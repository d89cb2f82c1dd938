/**
 * Resource client: the typed CRUD, patch and watch contract of types.ts for one resource of one
 * plane, over the transport (client-node's kubeconfig, TLS and credentials).
 *
 * Guarantees: `get` of a missing object resolves undefined and `delete` of one resolves false;
 * every other refusal rejects with the typed StatusError of the server's Status. Writes send
 * `apiVersion` and `kind` from the ResourceId when the object has none, and list items carry
 * them too, so listed and watched objects look alike. A namespace is taken from the object (or
 * argument) for a namespaced resource and ignored for a cluster-scoped one.
 * Caveat: a 404 on `get` also means "no such resource type" (a CRD not yet served); it resolves
 * undefined like a missing object, and the next write names the real cause.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from './errors.ts';
import { send, type PlaneRequest, type Query } from './transport.ts';
import type {
  DeleteOptions,
  JsonPatchOperation,
  KubeObject,
  ListOptions,
  ListResult,
  ResourceClient,
  ResourceId,
  WatchEvent,
  WatchHandle,
  WatchOptions,
  WriteOptions,
} from './types.ts';
import { openWatch } from './watch.ts';

const MERGE_PATCH = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

type Subresource = 'status' | undefined;

function apiVersionOf(id: ResourceId): string {
  return id.group === '' ? id.version : `${id.group}/${id.version}`;
}

/** `/api/v1[/namespaces/<ns>]/<plural>` or `/apis/<g>/<v>[/namespaces/<ns>]/<plural>`. */
function collectionPath(id: ResourceId, namespace: string | undefined): string {
  const root = id.group === '' ? `/api/${id.version}` : `/apis/${id.group}/${id.version}`;
  const scope = id.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${root}${scope}/${id.plural}`;
}

function objectPath(
  id: ResourceId,
  name: string | undefined,
  namespace: string | undefined,
  subresource?: Subresource,
): string {
  if (!name) throw new Error(`a ${id.kind} needs a name for this request: give metadata.name`);
  if (id.namespaced && !namespace) throw new Error(`${id.kind} ${name} is namespaced: give its namespace`);
  const path = `${collectionPath(id, namespace)}/${encodeURIComponent(name)}`;
  return subresource ? `${path}/${subresource}` : path;
}

/**
 * Every write but apply asks `fieldValidation=Ignore`: this client reads no warnings, so the
 * server is spared looking for them; unknown fields are dropped as under the default.
 */
function writeQuery(options: WriteOptions = {}): Query {
  return {
    fieldManager: options.fieldManager,
    dryRun: options.dryRun ? 'All' : undefined,
    fieldValidation: 'Ignore',
  };
}

export function resourceClient<T extends KubeObject>(
  kubeConfig: KubeConfig,
  id: ResourceId,
): ResourceClient<T> {
  return new HttpResourceClient<T>(kubeConfig, id);
}

/**
 * One resource's client, its methods on the prototype: a fleet's controller worker holds tens of
 * thousands of clients (about 43 a project plane), and as closures made per client their methods
 * were about 35 KiB a project (bench/README.md, session 23).
 */
class HttpResourceClient<T extends KubeObject> implements ResourceClient<T> {
  readonly #kubeConfig: KubeConfig;
  readonly #apiVersion: string;

  constructor(
    kubeConfig: KubeConfig,
    readonly id: ResourceId,
  ) {
    this.#kubeConfig = kubeConfig;
    this.#apiVersion = apiVersionOf(id);
  }

  async get(name: string, namespace?: string): Promise<T | undefined> {
    try {
      return await this.#call({ method: 'GET', path: objectPath(this.id, name, namespace) });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async list(options: ListOptions = {}): Promise<ListResult<T>> {
    const body = (await send(this.#kubeConfig, {
      method: 'GET',
      path: collectionPath(this.id, options.namespace),
      query: {
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        limit: options.limit,
        continue: options.continue,
        resourceVersion: options.resourceVersion,
      },
    })) as { items: T[] | null; metadata: { resourceVersion: string; continue?: string } };
    const result: ListResult<T> = {
      items: (body.items ?? []).map((item) => this.#typed(item)),
      resourceVersion: body.metadata.resourceVersion,
    };
    if (body.metadata.continue) result.continue = body.metadata.continue;
    return result;
  }

  async create(object: T, options?: WriteOptions): Promise<T> {
    const { name, generateName, namespace } = object.metadata;
    if (this.id.namespaced && !namespace) {
      throw new Error(
        `${this.id.kind} ${name ?? generateName ?? ''} is namespaced: give its metadata.namespace`,
      );
    }
    return this.#call({
      method: 'POST',
      path: collectionPath(this.id, namespace),
      query: writeQuery(options),
      body: this.#typed(object),
    });
  }

  update(object: T, options?: WriteOptions): Promise<T> {
    return this.#put(object, undefined, options);
  }

  updateStatus(object: T, options?: WriteOptions): Promise<T> {
    return this.#put(object, 'status', options);
  }

  patchMerge(
    name: string,
    namespace: string | undefined,
    body: unknown,
    options: WriteOptions & { subresource?: Subresource } = {},
  ): Promise<T> {
    return this.#patch(name, namespace, MERGE_PATCH, body, writeQuery(options), options.subresource);
  }

  patchJson(
    name: string,
    namespace: string | undefined,
    operations: JsonPatchOperation[],
    options: WriteOptions & { subresource?: Subresource } = {},
  ): Promise<T> {
    return this.#patch(name, namespace, JSON_PATCH, operations, writeQuery(options), options.subresource);
  }

  apply(
    object: T,
    options: { fieldManager: string; force?: boolean; subresource?: Subresource },
  ): Promise<T> {
    const query = { fieldManager: options.fieldManager, force: options.force };
    // JSON is YAML, so the object goes as is.
    return this.#patch(
      object.metadata.name,
      object.metadata.namespace,
      APPLY_PATCH,
      this.#typed(object),
      query,
      options.subresource,
    );
  }

  async delete(name: string, namespace?: string, options: DeleteOptions = {}): Promise<boolean> {
    try {
      await send(this.#kubeConfig, {
        method: 'DELETE',
        path: objectPath(this.id, name, namespace),
        body: { apiVersion: 'v1', kind: 'DeleteOptions', ...options },
      });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  watch(
    options: WatchOptions,
    onEvent: (...event: WatchEvent<T>) => void,
    done: (err?: Error) => void,
  ): Promise<WatchHandle> {
    const query: Query = {
      resourceVersion: options.resourceVersion,
      allowWatchBookmarks: options.allowWatchBookmarks,
      timeoutSeconds: options.timeoutSeconds,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
    };
    return openWatch(this.#kubeConfig, collectionPath(this.id, options.namespace), query, onEvent, done);
  }

  #typed(object: T): T {
    return {
      ...object,
      apiVersion: object.apiVersion ?? this.#apiVersion,
      kind: object.kind ?? this.id.kind,
    };
  }

  async #call(request: PlaneRequest): Promise<T> {
    return (await send(this.#kubeConfig, request)) as T;
  }

  // Async, so that a request that cannot be addressed rejects rather than throws.
  async #put(object: T, subresource: Subresource, options?: WriteOptions): Promise<T> {
    return this.#call({
      method: 'PUT',
      path: objectPath(this.id, object.metadata.name, object.metadata.namespace, subresource),
      query: writeQuery(options),
      body: this.#typed(object),
    });
  }

  async #patch(
    name: string | undefined,
    namespace: string | undefined,
    contentType: string,
    body: unknown,
    query: Query,
    subresource: Subresource,
  ): Promise<T> {
    return this.#call({
      method: 'PATCH',
      path: objectPath(this.id, name, namespace, subresource),
      query,
      body,
      contentType,
    });
  }
}
