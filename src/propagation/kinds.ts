/**
 * Kind resolution: which resource serves an (apiVersion, kind) on a plane, read from the plane's
 * discovery (`/api/v1`, `/apis/<group>/<version>`), as the propagation engine needs for template
 * kinds on the hub and for the kinds of each member's Works (propagation.md §0.1).
 *
 * Guarantees: a resolved kind is cached per (server, apiVersion, kind) until `forget`; a kind the
 * plane does not serve is never cached, so a retry sees a CRD installed since, and throws
 * `KindNotServedError` whose message names the apiVersion, the kind and the plane's server.
 * Subresources (`pods/status`) are never returned.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from '../client/errors.ts';
import { send } from '../client/transport.ts';
import type { ResourceId } from '../client/types.ts';

export class KindNotServedError extends Error {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
    server: string,
  ) {
    super(`the server ${server} does not serve kind ${kind} at apiVersion ${apiVersion}`);
  }
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export class KindResolver {
  private readonly cache = new Map<string, ResourceId>();

  async resolve(kubeConfig: KubeConfig, apiVersion: string, kind: string): Promise<ResourceId> {
    const server = kubeConfig.getCurrentCluster()?.server ?? '';
    const key = `${server}|${apiVersion}|${kind}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const { group, version } = splitApiVersion(apiVersion);
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    let resources: ApiResource[] = [];
    try {
      const list = (await send(kubeConfig, { method: 'GET', path })) as { resources?: ApiResource[] };
      resources = list.resources ?? [];
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const resource = resources.find((r) => r.kind === kind && !r.name.includes('/'));
    if (!resource) throw new KindNotServedError(apiVersion, kind, server);
    const id: ResourceId = { group, version, kind, plural: resource.name, namespaced: resource.namespaced };
    this.cache.set(key, id);
    return id;
  }

  /** Drops every cached resolution against `server` (after a CRD there changed). */
  forget(server: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${server}|`)) this.cache.delete(key);
  }
}
