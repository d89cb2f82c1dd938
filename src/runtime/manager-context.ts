/**
 * How controllers are composed: every controller reaches the planes it reads and writes through
 * a `ManagerContext`, and is described by a `ControllerDefinition` that builds a runtime
 * Controller with its triggers. `netpresence manager`, `netpresence cell`, the embedded fleet and
 * the scenario harness all run controllers this one way.
 *
 * Guarantees: informers are shared per (plane, resource, options) — two controllers watching
 * the same kind in the same plane share one reflector; a static plane's informers start on
 * first use and stop with `close()`; project planes come and go through the PlaneRegistry,
 * whose informers stop when the plane disengages.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { resourceClient } from '../client/resource-client.ts';
import type { KubeObject, ResourceClient, ResourceId } from '../client/types.ts';
import type { Clock } from './clock.ts';
import type { RunnableController } from './controller.ts';
import { createInformer, type RunningInformer } from './informer.ts';
import type { RuntimeMetrics } from './metrics.ts';
import {
  informerKey,
  PlaneRegistry,
  PROJECTS,
  projectKubeConfig,
  type PlaneInformerOptions,
  type ProjectLike,
} from './planes.ts';

/** A plane a controller can read (shared informers) and write (clients). */
export interface PlaneAccess {
  readonly name: string;
  readonly kubeConfig: KubeConfig;
  client<T extends KubeObject>(id: ResourceId): ResourceClient<T>;
  informer<T extends KubeObject>(id: ResourceId, options?: PlaneInformerOptions<T>): RunningInformer<T>;
}

export interface ManagerContext {
  /** Milo's root plane: Projects, Locations, ServiceAvailability. */
  platform: PlaneAccess;
  /** The federation hub: bindings, hub copies, ServingLocations, Clusters, policies. */
  hub: PlaneAccess;
  /** Project planes, engaged while their Project is Ready. */
  projects: PlaneRegistry;
  clock: Clock;
  log: Logger;
  metrics: RuntimeMetrics;
}

export interface ControllerDefinition<C = ManagerContext> {
  name: string;
  /**
   * Builds the controller and subscribes its triggers — on static planes at once, on project
   * planes as they engage (via `ctx.projects.subscribe`). The caller starts it once the
   * informers it asked for are synced, and stops it on shutdown.
   */
  build(ctx: C): RunnableController;
}

/** A plane reached through a kubeconfig for the whole life of the process (platform, hub, a cell). */
export class StaticPlane implements PlaneAccess {
  // Keyed by resource (and options); each entry is of the type its first caller asked for.
  private readonly informers = new Map<string, Pick<RunningInformer<KubeObject>, 'synced' | 'stop'>>();
  private readonly clients = new Map<string, ResourceClient<KubeObject>>();

  constructor(
    readonly name: string,
    readonly kubeConfig: KubeConfig,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  client<T extends KubeObject>(id: ResourceId): ResourceClient<T> {
    const key = informerKey(id);
    let client = this.clients.get(key);
    if (!client) this.clients.set(key, (client = resourceClient<KubeObject>(this.kubeConfig, id)));
    return client as ResourceClient<T>;
  }

  informer<T extends KubeObject>(id: ResourceId, options: PlaneInformerOptions<T> = {}): RunningInformer<T> {
    const key = informerKey(id, options as PlaneInformerOptions<KubeObject>);
    let informer = this.informers.get(key) as RunningInformer<T> | undefined;
    if (!informer) {
      informer = createInformer<T>({
        plane: this.name,
        client: this.client<T>(id),
        clock: this.clock,
        log: this.log,
        namespace: options.namespace,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
      });
      this.informers.set(key, informer);
      informer.start();
    }
    for (const [name, fn] of Object.entries(options.indexes ?? {})) informer.addIndex(name, fn);
    return informer;
  }

  /** Resolves once every informer asked for so far has listed. */
  async synced(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.synced()));
  }

  async close(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    this.informers.clear();
  }
}

/** A `ManagerContext` whose platform and hub are planes of this process's own. */
export interface ConnectedContext extends ManagerContext {
  platform: StaticPlane;
  hub: StaticPlane;
}

/**
 * The context of controllers that reach the platform and the hub through these kubeconfigs, and
 * each project plane at the Milo path under the platform's server (`projectKubeConfig`), engaged
 * while its Project is Ready. Nothing is started: the caller starts `projects`, builds its
 * controllers, and awaits the planes' `synced()` and `projects.settled()` before starting them.
 */
export function connectContext(options: {
  platform: KubeConfig;
  hub: KubeConfig;
  clock: Clock;
  log: Logger;
  metrics: RuntimeMetrics;
}): ConnectedContext {
  const { clock, log, metrics } = options;
  const platform = new StaticPlane('platform', options.platform, clock, log);
  const hub = new StaticPlane('hub', options.hub, clock, log);
  const projects = new PlaneRegistry({
    projects: platform.informer<ProjectLike>(PROJECTS),
    kubeConfigFor: (project) => projectKubeConfig(options.platform, project),
    log,
    clock,
  });
  return { platform, hub, projects, clock, log, metrics };
}

/** Controllers started on a connected context by `startControllers`. */
export interface RunningControllers {
  /**
   * Stops the controllers in the order they started, then disengages every project plane and
   * closes both planes.
   */
  stop(): Promise<void>;
}

/**
 * Builds `definitions` on `ctx` and starts them, in order, once the platform and hub informers
 * they asked for have listed and every engaged project plane has been taken up (the project
 * registry is started first, so that planes engage while they list).
 */
export async function startControllers<C extends ConnectedContext>(
  ctx: C,
  definitions: ControllerDefinition<C>[],
): Promise<RunningControllers> {
  ctx.projects.start();
  const controllers = definitions.map((definition) => definition.build(ctx));
  await Promise.all([ctx.platform.synced(), ctx.hub.synced(), ctx.projects.settled()]);
  for (const controller of controllers) await controller.start();
  return {
    async stop() {
      for (const controller of controllers) await controller.stop();
      await ctx.projects.stop();
      await Promise.all([ctx.platform.close(), ctx.hub.close()]);
    },
  };
}
