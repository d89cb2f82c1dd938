/**
 * Plane registry: the project planes a process works in, engaged while their Project on the
 * platform is Ready and disengaged when it stops being Ready or goes away.
 *
 * Guarantees:
 * - a project is engaged exactly while its `Project` (resourcemanager.miloapis.com/v1alpha1,
 *   cluster-scoped, on the platform plane) has `status.conditions[type=Ready].status == "True"`
 *   and no deletionTimestamp; a Project deleted and recreated under the same name (a new uid) is
 *   disengaged and engaged afresh;
 * - transitions of one project run one at a time and in order; each reads the Project's current
 *   state from the informer's store when it runs (level-triggered), so a burst of events
 *   collapses into the transitions the last state needs;
 * - disengaging aborts the plane's signal, tells every listener, then stops every informer the
 *   plane created, so no watch of a disengaged plane stays open once `settled()` resolves;
 * - `plane.informer(id, options)` shares one started informer per (resource, namespace,
 *   selectors) within a plane; asking again adds the given indexes to it; `plane.client(id)`
 *   shares one client per resource, the one its informers list and watch with;
 * - a listener that throws is logged; the transition carries on.
 *
 * Names: an engaged plane is named `project-<project>` (as the embedded API server names project
 * planes), so keys and logs of different planes never collide with the platform's or hub's.
 * Assumes: the platform serves each project's control plane at the Milo path
 * `<platform server>/apis/resourcemanager.miloapis.com/v1alpha1/projects/<project>/control-plane`
 * (`projectKubeConfig` builds its KubeConfig); the projects informer is started by the caller.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { projectControlPlanePath } from '../apis/resourcemanager/v1alpha1/control-plane-path.ts';
import { resourceClient } from '../client/resource-client.ts';
import type { KubeObject, ResourceClient, ResourceId } from '../client/types.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Informer } from './informer-contract.ts';
import { createInformer, type RunningInformer } from './informer.ts';
import type { ReflectorSettings } from './reflector.ts';
import type { IndexFunction } from './store.ts';

export const PROJECTS: ResourceId = {
  group: 'resourcemanager.miloapis.com',
  version: 'v1alpha1',
  kind: 'Project',
  plural: 'projects',
  namespaced: false,
};

export interface ProjectLike extends KubeObject {
  status?: { conditions?: { type: string; status: string }[] };
}

export function isProjectReady(project: ProjectLike): boolean {
  return project.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

export function projectPlaneName(project: string): string {
  return `project-${project}`;
}

/** The platform's KubeConfig with its current cluster's server moved to the project's control plane. */
export function projectKubeConfig(platform: KubeConfig, project: string): KubeConfig {
  const cluster = platform.getCurrentCluster();
  if (!cluster)
    throw new Error(`the platform kubeconfig has no current cluster to reach project ${project} through`);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: platform
      .getClusters()
      .map((c) =>
        c.name === cluster.name
          ? { ...c, server: `${c.server.replace(/\/+$/, '')}${projectControlPlanePath(project)}` }
          : c,
      ),
    users: platform.getUsers(),
    contexts: platform.getContexts(),
    currentContext: platform.getCurrentContext(),
  });
  return kubeConfig;
}

/** The key of a plane's shared informer (and, without options, of its client) for a resource. */
export function informerKey(id: ResourceId, options: PlaneInformerOptions<KubeObject> = {}): string {
  return [
    id.group,
    id.version,
    id.plural,
    options.namespace ?? '',
    options.labelSelector ?? '',
    options.fieldSelector ?? '',
  ].join('|');
}

export interface PlaneInformerOptions<T extends KubeObject> {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  indexes?: Record<string, IndexFunction<T>>;
}

export interface EngagedPlane {
  /** `project-<project>`. */
  readonly name: string;
  readonly project: string;
  /** The uid of the Project this engagement belongs to. */
  readonly uid: string | undefined;
  readonly kubeConfig: KubeConfig;
  /** Aborted when the plane is disengaged. */
  readonly signal: AbortSignal;
  client<T extends KubeObject>(id: ResourceId): ResourceClient<T>;
  /** A started informer in this plane, stopped when the plane is disengaged. */
  informer<T extends KubeObject>(id: ResourceId, options?: PlaneInformerOptions<T>): RunningInformer<T>;
}

export interface PlaneListener {
  engaged?: (plane: EngagedPlane) => void | Promise<void>;
  disengaged?: (plane: EngagedPlane) => void | Promise<void>;
}

export interface PlaneRegistryOptions {
  /** Projects on the platform plane. */
  projects: Informer<ProjectLike>;
  kubeConfigFor: (project: string) => KubeConfig;
  onEngage?: (plane: EngagedPlane) => void | Promise<void>;
  onDisengage?: (plane: EngagedPlane) => void | Promise<void>;
  log: Logger;
  clock?: Clock;
  /** How a plane's clients are made; tests pass fakes. */
  clientFor?: (kubeConfig: KubeConfig, id: ResourceId) => ResourceClient<KubeObject>;
  reflector?: ReflectorSettings;
}

interface Engagement {
  plane: EngagedPlane;
  abort: AbortController;
  /** Each holds the type it was first asked for under its key; all are stopped alike. */
  informers: Map<string, Pick<RunningInformer, 'stop'>>;
}

export class PlaneRegistry {
  private readonly engaged = new Map<string, Engagement>();
  private readonly transitions = new Map<string, Promise<void>>();
  private readonly listeners = new Set<PlaneListener>();
  private unsubscribe?: () => void;
  private stopped = false;

  constructor(private readonly options: PlaneRegistryOptions) {
    this.listeners.add({ engaged: options.onEngage, disengaged: options.onDisengage });
  }

  /** Starts following the projects informer (each Ready Project already held is engaged). */
  start(): void {
    this.unsubscribe ??= this.options.projects.subscribe((event) =>
      this.schedule(event.object.metadata.name!),
    );
  }

  /** Stops following Projects and disengages every plane. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    for (const project of this.engaged.keys()) this.schedule(project);
    await this.settled();
  }

  get(project: string): EngagedPlane | undefined {
    return this.engaged.get(project)?.plane;
  }

  list(): EngagedPlane[] {
    return [...this.engaged.values()].map((e) => e.plane);
  }

  /** Adds a listener; it is told of every plane engaged now, then of each transition. */
  subscribe(listener: PlaneListener): () => void {
    this.listeners.add(listener);
    for (const { plane } of this.engaged.values()) void this.tell(listener, 'engaged', plane);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves once every transition scheduled so far (and any they caused) has finished. */
  async settled(): Promise<void> {
    while (this.transitions.size > 0) await Promise.all(this.transitions.values());
  }

  private schedule(project: string): void {
    const previous = this.transitions.get(project) ?? Promise.resolve();
    const next = previous
      .then(() => this.reconcile(project))
      .catch((err: unknown) => this.options.log.error({ err, project }, 'project plane transition failed'));
    this.transitions.set(project, next);
    void next.finally(() => {
      if (this.transitions.get(project) === next) this.transitions.delete(project);
    });
  }

  /** Brings one project's engagement in line with its Project as the store holds it now. */
  private async reconcile(project: string): Promise<void> {
    const object = this.stopped ? undefined : this.options.projects.store.get(undefined, project);
    const wanted =
      object && isProjectReady(object) && !object.metadata.deletionTimestamp ? object : undefined;
    const current = this.engaged.get(project);
    if (current && current.plane.uid !== wanted?.metadata.uid) await this.disengage(current);
    if (wanted && !this.engaged.has(project)) await this.engage(project, wanted.metadata.uid);
  }

  private async engage(project: string, uid: string | undefined): Promise<void> {
    const name = projectPlaneName(project);
    const log = this.options.log.child({ plane: name });
    let kubeConfig: KubeConfig;
    try {
      kubeConfig = this.options.kubeConfigFor(project);
    } catch (err) {
      log.error({ err }, 'cannot reach the project plane; not engaging it');
      return;
    }
    const abort = new AbortController();
    const informers = new Map<string, Pick<RunningInformer, 'stop'>>();
    const clientFor = this.options.clientFor ?? resourceClient;
    // One client per resource, shared by the plane's informers and writers, as on a StaticPlane.
    const clients = new Map<string, ResourceClient<KubeObject>>();
    const plane: EngagedPlane = {
      name,
      project,
      uid,
      kubeConfig,
      signal: abort.signal,
      client: <T extends KubeObject>(id: ResourceId): ResourceClient<T> => {
        const key = informerKey(id);
        let client = clients.get(key);
        if (!client) clients.set(key, (client = clientFor(kubeConfig, id)));
        return client as ResourceClient<T>;
      },
      informer: <T extends KubeObject>(
        id: ResourceId,
        options: PlaneInformerOptions<T> = {},
      ): RunningInformer<T> => {
        if (abort.signal.aborted) throw new Error(`plane ${name} is disengaged; it serves no new informers`);
        const key = informerKey(id, options as PlaneInformerOptions<KubeObject>);
        let informer = informers.get(key) as RunningInformer<T> | undefined;
        if (!informer) {
          informer = createInformer<T>({
            plane: name,
            client: plane.client<T>(id),
            log: this.options.log,
            clock: this.options.clock ?? systemClock,
            namespace: options.namespace,
            labelSelector: options.labelSelector,
            fieldSelector: options.fieldSelector,
            reflector: this.options.reflector,
          });
          informers.set(key, informer);
          informer.start();
        }
        for (const [index, fn] of Object.entries(options.indexes ?? {})) informer.addIndex(index, fn);
        return informer;
      },
    };
    this.engaged.set(project, { plane, abort, informers });
    log.info({ project, uid }, 'engaged project plane');
    for (const listener of [...this.listeners]) await this.tell(listener, 'engaged', plane);
  }

  private async disengage(engagement: Engagement): Promise<void> {
    const { plane, abort, informers } = engagement;
    this.engaged.delete(plane.project);
    abort.abort(new Error(`plane ${plane.name} disengaged`));
    for (const listener of [...this.listeners]) await this.tell(listener, 'disengaged', plane);
    await Promise.all([...informers.values()].map((informer) => informer.stop()));
    this.options.log.info({ plane: plane.name, project: plane.project }, 'disengaged project plane');
  }

  private async tell(
    listener: PlaneListener,
    what: 'engaged' | 'disengaged',
    plane: EngagedPlane,
  ): Promise<void> {
    try {
      await listener[what]?.(plane);
    } catch (err) {
      this.options.log.error(
        { err, plane: plane.name },
        `plane listener failed when told the plane was ${what}`,
      );
    }
  }
}
