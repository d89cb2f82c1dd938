/**
 * The PlaneReader over a kubeconfig: each plane is the context of that name (contexts.ts), read
 * with the typed resource client.
 *
 * Guarantees: a project plane whose `project-<project>` context is absent is reached under the
 * `platform` context at the Milo project path, as `netpresence manager` reaches it; any other
 * absent context, a connection failure or a refusal other than NotFound rejects with
 * PlaneUnavailableError naming the plane. A kind the plane does not serve reads as absent (get)
 * or empty (list). The kubeconfig file is read once.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from '../client/errors.ts';
import { parseKubeConfig, withContext } from '../client/kubeconfig.ts';
import { resourceClient } from '../client/resource-client.ts';
import type { KubeObject, ResourceId } from '../client/types.ts';
import { projectKubeConfig } from '../runtime/planes.ts';
import { PLATFORM_CONTEXT } from './contexts.ts';
import { PlaneUnavailableError, type PlaneReader } from './reader.ts';

const PROJECT_CONTEXT_PREFIX = 'project-';

export const noContext = (path: string, plane: string, known: string[]): string =>
  `kubeconfig ${path} has no context "${plane}" (it has: ${known.join(', ') || 'none'})`;

export class KubeconfigPlaneReader implements PlaneReader {
  private readonly base: KubeConfig;
  private readonly configs = new Map<string, KubeConfig>();

  constructor(private readonly path: string) {
    this.base = parseKubeConfig(path);
  }

  async get<T extends KubeObject>(
    plane: string,
    kind: ResourceId,
    name: string,
    namespace?: string,
  ): Promise<T | undefined> {
    const client = resourceClient<T>(this.configFor(plane), kind);
    return this.guard(plane, () => client.get(name, namespace));
  }

  async list<T extends KubeObject>(
    plane: string,
    kind: ResourceId,
    options: { namespace?: string; labelSelector?: string } = {},
  ): Promise<T[]> {
    const client = resourceClient<T>(this.configFor(plane), kind);
    return this.guard(plane, async () => {
      try {
        return (await client.list(options)).items;
      } catch (err) {
        if (isNotFound(err)) return [];
        throw err;
      }
    });
  }

  private async guard<R>(plane: string, read: () => Promise<R>): Promise<R> {
    try {
      return await read();
    } catch (err) {
      throw new PlaneUnavailableError(plane, (err as Error).message);
    }
  }

  private configFor(plane: string): KubeConfig {
    const cached = this.configs.get(plane);
    if (cached) return cached;
    const config = this.build(plane);
    this.configs.set(plane, config);
    return config;
  }

  private build(plane: string): KubeConfig {
    const known = this.base.getContexts().map((context) => context.name);
    if (known.includes(plane)) return withContext(this.base, this.path, plane);
    if (plane.startsWith(PROJECT_CONTEXT_PREFIX) && known.includes(PLATFORM_CONTEXT)) {
      return projectKubeConfig(
        withContext(this.base, this.path, PLATFORM_CONTEXT),
        plane.slice(PROJECT_CONTEXT_PREFIX.length),
      );
    }
    throw new PlaneUnavailableError(plane, noContext(this.path, plane, known));
  }
}
