/**
 * Cluster (propagation.md §1.2, §7.7): every `Cluster` has its execution space
 * `karmada-es-<name>` on the hub and the finalizer `karmada.io/cluster-controller`; a Cluster
 * being deleted is released only after its Works and its execution space are gone.
 *
 * Guarantees:
 * - the execution space is created when absent (and again if someone deletes it while the
 *   Cluster lives), and the finalizer is added on first sight;
 * - when the Cluster is being deleted: 1. every Work in its execution space is deleted
 *   (execution then deletes the copies on a ready member and leaves them on one that is not,
 *   release.ts), and the Cluster waits while any remains; 2. the execution space is deleted;
 *   3. the finalizer is removed. The member's informers are dropped once the Cluster is gone;
 * - nothing is written that is already as it should be.
 */
import { CLUSTER_CONTROLLER_FINALIZER, type Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import { executionSpaceName, type Work } from '../../apis/work/v1alpha1/work.ts';
import { isAlreadyExists } from '../../client/errors.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import type { ControllerDefinition } from '../../runtime/manager-context.ts';
import { NAMESPACES } from '../../runtime/resource-ids.ts';
import { type Controller, done, type Outcome } from '../../runtime/controller.ts';
import type { Informer, ObjectStore } from '../../runtime/informer-contract.ts';
import { ensureFinalizer, hasFinalizer, removeFinalizer } from '../../runtime/finalizer.ts';
import { forObject, watches, type Trigger } from '../../runtime/triggers.ts';
import type { EngineContext, MemberDirectory } from '../engine-context.ts';
import { engineController, nameKeys } from '../engine-controller.ts';
import { isDeleting } from './cluster-state.ts';
import { CLUSTERS, WORKS } from './execution.ts';
import { clusterOfExecutionSpace } from './work-key.ts';

export const name = 'cluster';

export interface ClusterDeps {
  clusters: ObjectStore<Cluster>;
  clustersClient: ResourceClient<Cluster>;
  namespaces: ObjectStore;
  namespacesClient: ResourceClient;
  works: ObjectStore<Work>;
  worksClient: ResourceClient<Work>;
  members: MemberDirectory;
}

export async function reconcile(clusterName: string, deps: ClusterDeps): Promise<Outcome> {
  const cluster = deps.clusters.get(undefined, clusterName);
  if (!cluster) {
    await deps.members.forget(clusterName);
    return done();
  }
  if (isDeleting(cluster)) return retire(cluster, deps);
  await ensureFinalizer(deps.clustersClient, cluster, CLUSTER_CONTROLLER_FINALIZER);
  await ensureExecutionSpace(clusterName, deps);
  return done();
}

async function ensureExecutionSpace(clusterName: string, deps: ClusterDeps): Promise<void> {
  const space = executionSpaceName(clusterName);
  if (deps.namespaces.get(undefined, space)) return;
  await deps.namespacesClient.create({ metadata: { name: space } }).catch((err: unknown) => {
    if (!isAlreadyExists(err)) throw err;
  });
}

/** §1.2's deletion sequence; each step waits for the one before. */
async function retire(cluster: Cluster, deps: ClusterDeps): Promise<Outcome> {
  if (!hasFinalizer(cluster, CLUSTER_CONTROLLER_FINALIZER)) return done();
  const space = executionSpaceName(cluster.metadata.name!);
  const works = deps.works.list(space);
  if (works.length > 0) {
    const live = works.filter((work) => !work.metadata.deletionTimestamp);
    await Promise.all(live.map((work) => deps.worksClient.delete(work.metadata.name!, space)));
    return done(); // each Work's deletion wakes the Cluster again
  }
  const namespace = deps.namespaces.get(undefined, space);
  if (namespace && !namespace.metadata.deletionTimestamp) await deps.namespacesClient.delete(space);
  await removeFinalizer(deps.clustersClient, cluster, CLUSTER_CONTROLLER_FINALIZER);
  return done();
}

export function triggers(
  clusters: Informer<Cluster>,
  namespaces: Informer,
  works: Informer<Work>,
): Trigger<string>[] {
  const clusterOf = (object: KubeObject): string[] => {
    const cluster = clusterOfExecutionSpace(object.metadata.namespace ?? object.metadata.name);
    return cluster ? [cluster] : [];
  };
  return [
    forObject(clusters, (cluster) => cluster.metadata.name!),
    watches(
      namespaces,
      (event) => clusterOf(event.object),
      (event) => event.type === 'DELETED',
    ),
    watches(
      works,
      (event) => clusterOf(event.object),
      (event) => event.type === 'DELETED',
    ),
  ];
}

export const clusterController: ControllerDefinition<EngineContext> = {
  name,
  build(ctx: EngineContext): Controller<string> {
    const clusters = ctx.hub.informer<Cluster>(CLUSTERS);
    const namespaces = ctx.hub.informer(NAMESPACES);
    const works = ctx.hub.informer<Work>(WORKS);
    const deps: ClusterDeps = {
      clusters: clusters.store,
      clustersClient: ctx.hub.client<Cluster>(CLUSTERS),
      namespaces: namespaces.store,
      namespacesClient: ctx.hub.client(NAMESPACES),
      works: works.store,
      worksClient: ctx.hub.client<Work>(WORKS),
      members: ctx.members,
    };
    return engineController(ctx, {
      name,
      reconcile: (clusterName) => reconcile(clusterName, deps),
      ...nameKeys,
      triggers: triggers(clusters, namespaces, works),
    });
  },
};
