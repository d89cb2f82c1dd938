/**
 * The simulated data plane, project part (controllers.md §14): a project-plane Subnet is
 * "programmed" once a cell serving its `spec.location` holds its copy.
 *
 * Guarantees: a Subnet whose copy is present in at least one cell serving its location reads
 * `Programmed=True` `Programmed` `The subnet is programmed in <n> cells`; otherwise
 * `Programmed=Unknown` `Pending` `No cell serving <location> holds the subnet yet`. Only that
 * condition is written, through the status subresource, and only when it differs; the
 * networkcontext controller derives the Subnet's `Ready` from it (§4).
 * Caveat: a cell's location is the one the fleet config gives it; a copy is matched to its source
 * by the upstream labels the replicator writes (cluster name, namespace, name).
 */
import type { Logger } from 'pino';
import {
  projectOfUpstreamClusterName,
  UPSTREAM_CLUSTER_NAME_LABEL,
  UPSTREAM_NAME_LABEL,
  UPSTREAM_NAMESPACE_LABEL,
} from '../apis/common/upstream.ts';
import { SubnetConditionType, subnetKind, type Subnet } from '../apis/networking/v1alpha/subnet.ts';
import type { ResourceClient } from '../client/types.ts';
import type { PlaneAccess } from '../runtime/manager-context.ts';
import { setCondition, type DesiredCondition } from '../runtime/conditions.ts';
import { projectObjectKeyString, type ProjectObjectKey } from '../controllers/shared/project-object-key.ts';
import type { PlaneWatch, ProjectPlaneWatch } from '../controllers/shared/project-plane-watch.ts';
import { projectObjectController } from '../controllers/shared/project-object-controller.ts';
import { resourceIdOf } from '../runtime/resource-ids.ts';
import { patchStatus } from '../runtime/writes.ts';
import type { Clock } from '../runtime/clock.ts';
import { ROUND_TRIP_WORKERS, type Controller } from '../runtime/controller.ts';
import type { Informer, ObjectStore } from '../runtime/informer-contract.ts';
import type { RuntimeMetrics } from '../runtime/metrics.ts';
import type { EngagedPlane, PlaneRegistry } from '../runtime/planes.ts';
import { forObject, watches } from '../runtime/triggers.ts';
import { DataPlaneReason, dataPlaneMessages } from './data-plane-interfaces.ts';

export const name = 'dataplane-subnets';

/** Index of cell copies by the project object they copy: `[project, namespace, name]`. */
const BY_SOURCE = 'bySource';

const SUBNETS = resourceIdOf(subnetKind);

/** The key of the project-plane Subnet a cell copy was made from, if its labels name one. */
export function sourceOf(copy: Subnet): ProjectObjectKey | undefined {
  const labels = copy.metadata.labels ?? {};
  const project = projectOfUpstreamClusterName(labels[UPSTREAM_CLUSTER_NAME_LABEL] ?? '');
  const namespace = labels[UPSTREAM_NAMESPACE_LABEL];
  const source = labels[UPSTREAM_NAME_LABEL];
  if (!project || !namespace || !source) return undefined;
  return { project, namespace, name: source };
}

export interface ServingCell {
  location: string | undefined;
  subnets: ObjectStore<Subnet>;
}

interface ProjectView {
  subnets: ObjectStore<Subnet>;
  client: ResourceClient<Subnet>;
}

export interface SubnetDataPlaneDeps {
  planes: ProjectPlaneWatch<ProjectObjectKey, ProjectView>;
  cells: ServingCell[];
  clock: Clock;
}

export function programmedCondition(location: string, cells: number): DesiredCondition {
  return cells > 0
    ? {
        type: SubnetConditionType.Programmed,
        status: 'True',
        reason: DataPlaneReason.Programmed,
        message: dataPlaneMessages.subnetProgrammed(cells),
      }
    : {
        type: SubnetConditionType.Programmed,
        status: 'Unknown',
        reason: DataPlaneReason.Pending,
        message: dataPlaneMessages.subnetPending(location),
      };
}

export async function reconcile(key: ProjectObjectKey, deps: SubnetDataPlaneDeps): Promise<void> {
  const view = deps.planes.view(key.project);
  const subnet = view?.subnets.get(key.namespace, key.name);
  if (!view || !subnet || subnet.metadata.deletionTimestamp) return;
  const location = subnet.spec.location.name;
  const source = projectObjectKeyString(key);
  const holding = deps.cells.filter(
    (cell) => cell.location === location && cell.subnets.byIndex(BY_SOURCE, source).length > 0,
  ).length;
  const conditions = setCondition(
    subnet.status?.conditions,
    programmedCondition(location, holding),
    subnet.metadata.generation,
    deps.clock.now(),
  );
  await patchStatus(view.client, subnet, { conditions });
}

// ---- triggers -------------------------------------------------------------------------------

function watchPlane(plane: EngagedPlane): PlaneWatch<ProjectObjectKey, ProjectView> {
  const subnets = plane.informer<Subnet>(SUBNETS);
  const keyOf = (subnet: Subnet): ProjectObjectKey => ({
    project: plane.project,
    namespace: subnet.metadata.namespace!,
    name: subnet.metadata.name!,
  });
  return {
    view: { subnets: subnets.store, client: plane.client<Subnet>(SUBNETS) },
    informers: [subnets],
    triggers: [forObject(subnets, keyOf)],
    keys: () => subnets.store.list().map(keyOf),
  };
}

export interface SubnetDataPlaneOptions {
  projects: PlaneRegistry;
  /** Each cell plane (read as the data plane's identity) and the location it serves. */
  cells: { plane: PlaneAccess; location: string | undefined }[];
  clock: Clock;
  log: Logger;
  metrics: RuntimeMetrics;
}

export function subnetDataPlane(options: SubnetDataPlaneOptions): Controller<ProjectObjectKey> {
  const copies: Informer<Subnet>[] = options.cells.map(({ plane }) =>
    plane.informer<Subnet>(SUBNETS, {
      indexes: {
        [BY_SOURCE]: (copy) => {
          const source = sourceOf(copy);
          return source ? [projectObjectKeyString(source)] : [];
        },
      },
    }),
  );
  const cells = options.cells.map((cell, i) => ({ location: cell.location, subnets: copies[i].store }));
  const controller = projectObjectController(options, {
    name,
    watchPlane,
    reconcile: (key, planes) => reconcile(key, { planes, cells, clock: options.clock }),
    workers: ROUND_TRIP_WORKERS,
  });
  for (const informer of copies)
    controller.watch(
      watches(informer, (event) => {
        const keys = [sourceOf(event.object), event.previous && sourceOf(event.previous)];
        return keys.filter((key): key is ProjectObjectKey => key !== undefined);
      }),
    );
  return controller;
}
