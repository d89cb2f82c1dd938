/**
 * A controller of one namespaced kind in every engaged project plane, keyed by the object
 * (project-object-key.ts) and fed by a ProjectPlaneWatch (project-plane-watch.ts): the network
 * and networkcontext controllers, and the fleet's Subnet data plane.
 *
 * Guarantees: the controller watches the plane registry through one ProjectPlaneWatch built
 * from `watchPlane`, which every reconcile is given; each key's log lines carry its project
 * plane; `workers` keys are reconciled at once (default ROUND_TRIP_WORKERS), never one key twice.
 */
import type { Clock } from '../../runtime/clock.ts';
import { Controller, ROUND_TRIP_WORKERS, type Outcome } from '../../runtime/controller.ts';
import type { Logger } from '../../runtime/logging.ts';
import type { ControllerDefinition, ManagerContext } from '../../runtime/manager-context.ts';
import type { RuntimeMetrics } from '../../runtime/metrics.ts';
import type { EngagedPlane, PlaneRegistry } from '../../runtime/planes.ts';
import {
  planeOfKey,
  projectObjectKeyFromString,
  projectObjectKeyString,
  type ProjectObjectKey,
} from './project-object-key.ts';
import { ProjectPlaneWatch, type PlaneWatch } from './project-plane-watch.ts';

/** What the controller runs with (a ManagerContext is one). */
export interface ProjectObjectControllerContext {
  projects: PlaneRegistry;
  clock: Clock;
  log: Logger;
  metrics: RuntimeMetrics;
}

export interface ProjectObjectControllerOptions<V> {
  name: string;
  /** What the controller reads and watches in one engaged plane. */
  watchPlane: (plane: EngagedPlane) => PlaneWatch<ProjectObjectKey, V>;
  reconcile: (
    key: ProjectObjectKey,
    planes: ProjectPlaneWatch<ProjectObjectKey, V>,
  ) => Promise<Outcome | void>;
  /** Default ROUND_TRIP_WORKERS. */
  workers?: number;
}

export function projectObjectController<V>(
  ctx: ProjectObjectControllerContext,
  options: ProjectObjectControllerOptions<V>,
): Controller<ProjectObjectKey> {
  const planes = new ProjectPlaneWatch(ctx.projects, options.watchPlane);
  const controller = new Controller<ProjectObjectKey>({
    name: options.name,
    reconcile: (key) => options.reconcile(key, planes),
    toString: projectObjectKeyString,
    fromString: projectObjectKeyFromString,
    planeOf: planeOfKey,
    workers: options.workers ?? ROUND_TRIP_WORKERS,
    clock: ctx.clock,
    log: ctx.log,
    metrics: ctx.metrics,
  });
  controller.watch(planes.trigger());
  return controller;
}

/** The manager's definition of such a controller: `reconcile` is given the planes and the context. */
export function projectObjectDefinition<V>(
  name: string,
  watchPlane: ProjectObjectControllerOptions<V>['watchPlane'],
  reconcile: (
    key: ProjectObjectKey,
    planes: ProjectPlaneWatch<ProjectObjectKey, V>,
    ctx: ManagerContext,
  ) => Promise<Outcome | void>,
): ControllerDefinition {
  return {
    name,
    build: (ctx) =>
      projectObjectController(ctx, {
        name,
        watchPlane,
        reconcile: (key, planes) => reconcile(key, planes, ctx),
      }),
  };
}
