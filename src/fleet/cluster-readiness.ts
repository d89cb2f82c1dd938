/**
 * Cluster readiness: inside the embedded fleet the fleet, not the engine, owns each hub
 * `Cluster`'s `Ready` condition (propagation.md §1.2). A Cluster named after a cell plane the
 * fleet serves is `Ready=True` `ClusterReady`; any other Cluster names nothing the engine can
 * reach and is `Ready=False` `ClusterNotReachable`, with Karmada's messages.
 *
 * Guarantees: only the `Ready` condition is written, through the status subresource, and only
 * when it differs; labels (the location a cell serves) are never touched, so moving a cell's
 * location label is a user's edit the fleet keeps.
 */
import {
  ClusterConditionType,
  clusterKind,
  clusterMessages,
  ClusterReason,
  type Cluster,
} from '../apis/cluster/v1alpha1/cluster.ts';
import type { ResourceClient } from '../client/types.ts';
import type { ControllerDefinition } from '../runtime/manager-context.ts';
import { setCondition, type DesiredCondition } from '../runtime/conditions.ts';
import { resourceIdOf } from '../runtime/resource-ids.ts';
import { patchStatus } from '../runtime/writes.ts';
import type { Clock } from '../runtime/clock.ts';
import { Controller } from '../runtime/controller.ts';
import type { ObjectStore } from '../runtime/informer-contract.ts';
import { forObject } from '../runtime/triggers.ts';
import type { FleetContext } from './context.ts';

export const name = 'cluster-readiness';

export interface ClusterReadinessDeps {
  clusters: ObjectStore<Cluster>;
  client: ResourceClient<Cluster>;
  /** Whether the fleet serves a cell plane of this name. */
  servesCell: (name: string) => boolean;
  clock: Clock;
}

export function desiredReady(servesCell: boolean): DesiredCondition {
  return servesCell
    ? {
        type: ClusterConditionType.Ready,
        status: 'True',
        reason: ClusterReason.ClusterReady,
        message: clusterMessages.ready,
      }
    : {
        type: ClusterConditionType.Ready,
        status: 'False',
        reason: ClusterReason.ClusterNotReachable,
        message: clusterMessages.notReachable,
      };
}

export async function reconcile(clusterName: string, deps: ClusterReadinessDeps): Promise<void> {
  const cluster = deps.clusters.get(undefined, clusterName);
  if (!cluster || cluster.metadata.deletionTimestamp) return;
  const conditions = setCondition(
    cluster.status?.conditions,
    desiredReady(deps.servesCell(clusterName)),
    cluster.metadata.generation,
    deps.clock.now(),
  );
  await patchStatus(deps.client, cluster, { conditions });
}

// ---- triggers -------------------------------------------------------------------------------

const CLUSTERS = resourceIdOf(clusterKind);

function buildClusterReadiness(ctx: FleetContext): Controller<string> {
  const clusters = ctx.hub.informer<Cluster>(CLUSTERS);
  const cells = new Set(ctx.config.cells.map((cell) => cell.name));
  const deps: ClusterReadinessDeps = {
    clusters: clusters.store,
    client: ctx.hub.client<Cluster>(CLUSTERS),
    servesCell: (cluster) => cells.has(cluster) && ctx.server.plane(cluster) !== undefined,
    clock: ctx.clock,
  };
  const controller = new Controller<string>({
    name,
    reconcile: (cluster) => reconcile(cluster, deps),
    toString: (cluster) => cluster,
    fromString: (cluster) => cluster,
    planeOf: () => 'hub',
    clock: ctx.clock,
    log: ctx.log,
    metrics: ctx.metrics,
  });
  controller.watch(forObject(clusters, (cluster) => cluster.metadata.name!));
  return controller;
}

export const clusterReadiness: ControllerDefinition<FleetContext> = { name, build: buildClusterReadiness };
