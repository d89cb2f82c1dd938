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
  const apiVersion = apiVersionOf(id);
  const typed = (object: T): T => ({
    ...object,
    apiVersion: object.apiVersion ?? apiVersion,
    kind: object.kind ?? id.kind,
  });
  const call = async (request: PlaneRequest): Promise<T> => (await send(kubeConfig, request)) as T;
  // Async, so that a request that cannot be addressed rejects rather than throws.
  const put = async (object: T, subresource: Subresource, options?: WriteOptions): Promise<T> =>
    call({
      method: 'PUT',
      path: objectPath(id, object.metadata.name, object.metadata.namespace, subresource),
      query: writeQuery(options),
      body: typed(object),
    });
  const patch = async (
    name: string | undefined,
    namespace: string | undefined,
    contentType: string,
    body: unknown,
    query: Query,
    subresource: Subresource,
  ): Promise<T> =>
    call({ method: 'PATCH', path: objectPath(id, name, namespace, subresource), query, body, contentType });

  return {
    id,

    async get(name, namespace) {
      try {
        return await call({ method: 'GET', path: objectPath(id, name, namespace) });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },

    async list(options: ListOptions = {}) {
      const body = (await send(kubeConfig, {
        method: 'GET',
        path: collectionPath(id, options.namespace),
        query: {
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          limit: options.limit,
          continue: options.continue,
          resourceVersion: options.resourceVersion,
        },
      })) as { items: T[] | null; metadata: { resourceVersion: string; continue?: string } };
      const result: ListResult<T> = {
        items: (body.items ?? []).map(typed),
        resourceVersion: body.metadata.resourceVersion,
      };
      if (body.metadata.continue) result.continue = body.metadata.continue;
      return result;
    },

    async create(object, options) {
      const { name, generateName, namespace } = object.metadata;
      if (id.namespaced && !namespace) {
        throw new Error(
          `${id.kind} ${name ?? generateName ?? ''} is namespaced: give its metadata.namespace`,
        );
      }
      return call({
        method: 'POST',
        path: collectionPath(id, namespace),
        query: writeQuery(options),
        body: typed(object),
      });
    },

    update: (object, options) => put(object, undefined, options),
    updateStatus: (object, options) => put(object, 'status', options),

    patchMerge(name, namespace, body, options = {}) {
      return patch(name, namespace, MERGE_PATCH, body, writeQuery(options), options.subresource);
    },

    patchJson(name, namespace, operations: JsonPatchOperation[], options = {}) {
      return patch(name, namespace, JSON_PATCH, operations, writeQuery(options), options.subresource);
    },

    apply(object, options) {
      const query = { fieldManager: options.fieldManager, force: options.force };
      // JSON is YAML, so the object goes as is.
      return patch(
        object.metadata.name,
        object.metadata.namespace,
        APPLY_PATCH,
        typed(object),
        query,
        options.subresource,
      );
    },

    async delete(name, namespace, options: DeleteOptions = {}) {
      try {
        await send(kubeConfig, {
          method: 'DELETE',
          path: objectPath(id, name, namespace),
          body: { apiVersion: 'v1', kind: 'DeleteOptions', ...options },
        });
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    },

    watch(options: WatchOptions, onEvent, done) {
      const query: Query = {
        resourceVersion: options.resourceVersion,
        allowWatchBookmarks: options.allowWatchBookmarks,
        timeoutSeconds: options.timeoutSeconds,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
      };
      return openWatch(kubeConfig, collectionPath(id, options.namespace), query, onEvent, done);
    },
  };
}
