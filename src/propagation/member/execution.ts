/**
 * Execution (propagation.md §0.1, §4.4, §5, §6, §7): applies each hub Work's manifest to its
 * cluster's member, reports the Work's `Applied` condition, corrects drift, and releases Works
 * that are being deleted.
 *
 * Guarantees:
 * - every Work in an execution space `karmada-es-<cluster>` carries the finalizer
 *   `karmada.io/execution-controller` from first sight; a Work being deleted is released as
 *   release.ts says;
 * - a Work is applied only while its Cluster exists, is not being deleted, is in Push mode and
 *   `Ready=True`; otherwise its condition is left as it is (none if new), and the Cluster's
 *   change wakes it. Pull clusters are never connected to; that is logged once per cluster;
 * - a namespaced object is created only after its namespace's Work in the same execution space
 *   has been synced to the member (§5.5);
 * - `Applied` is `True/AppliedSuccessful` after a successful apply, and `False/AppliedFailed`
 *   with `Failed to apply all manifests (0/1): <error>` after any failure (unreachable member,
 *   kind not served, refusal, missing namespace, abort), and is written only when its status,
 *   reason or message changes; a failure is then retried with the per-key backoff;
 * - member events on managed copies wake their Work (drift.ts), so edits are reverted and
 *   deleted copies recreated; writes that would change nothing are skipped (retain-merge.ts).
 */
import { jsonEqual } from '../../apis/common/json-equal.ts';
import type { Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import {
  executionSpaceName,
  WORK_FINALIZER,
  workKind,
  workMessages,
  WorkConditionType,
  workName,
  WorkReason,
  type Work,
} from '../../apis/work/v1alpha1/work.ts';
import { clusterKind } from '../../apis/cluster/v1alpha1/cluster.ts';
import type { ControllerDefinition } from '../../runtime/manager-context.ts';
import { setCondition, type DesiredCondition } from '../../runtime/conditions.ts';
import { resourceIdOf } from '../../runtime/resource-ids.ts';
import {
  type Controller,
  done,
  type Outcome,
  ROUND_TRIP_WORKERS,
  TerminalError,
} from '../../runtime/controller.ts';
import type { Informer, InformerEvent } from '../../runtime/informer-contract.ts';
import { ensureFinalizer } from '../../runtime/finalizer.ts';
import type { Logger } from '../../runtime/logging.ts';
import { forObject, watches, type Trigger } from '../../runtime/triggers.ts';
import type { EngineContext } from '../engine-context.ts';
import { engineController } from '../engine-controller.ts';
import { applyManifest } from './apply.ts';
import { isClusterReady, isDeleting, isPull, readyStatus } from './cluster-state.ts';
import { MemberWatches } from './drift.ts';
import { memberKindAccess, type ExecutionDeps } from './execution-deps.ts';
import { manifestOf, NO_MANIFEST } from './manifest.ts';
import { release } from './release.ts';
import { secretTrigger } from './secret-trigger.ts';
import { clusterOfExecutionSpace, workKeyFromString, workKeyString, type WorkKey } from './work-key.ts';

export const name = 'execution';

/** Member writes are network calls: several Works are applied at once (never one twice). */
export const EXECUTION_WORKERS = ROUND_TRIP_WORKERS;

export const WORKS = resourceIdOf(workKind);
export const CLUSTERS = resourceIdOf(clusterKind);

const APPLIED: DesiredCondition = {
  type: WorkConditionType.Applied,
  status: 'True',
  reason: WorkReason.AppliedSuccessful,
  message: workMessages.applied,
};

const notApplied = (error: unknown): DesiredCondition => ({
  type: WorkConditionType.Applied,
  status: 'False',
  reason: WorkReason.AppliedFailed,
  message: workMessages.notApplied(error instanceof Error ? error.message : String(error)),
});

export interface ExecutionState {
  /** Pull clusters already logged about. */
  pullLogged: Set<string>;
}

export async function reconcile(
  key: WorkKey,
  deps: ExecutionDeps,
  state: ExecutionState,
  log: Logger,
): Promise<Outcome> {
  const work = deps.works.get(key.namespace, key.name);
  const clusterName = clusterOfExecutionSpace(key.namespace);
  if (!work || !clusterName) return done();
  const cluster = deps.clusters.get(undefined, clusterName);
  if (work.metadata.deletionTimestamp) {
    await release(work, cluster, deps, log);
    return done();
  }
  const held = await ensureFinalizer(deps.worksClient, work, WORK_FINALIZER);
  if (!cluster || isDeleting(cluster)) return done();
  if (isPull(cluster)) {
    if (!state.pullLogged.has(clusterName)) {
      state.pullLogged.add(clusterName);
      log.info(
        { cluster: clusterName },
        'cluster is in Pull mode: its Works are left for an agent on the member',
      );
    }
    return done();
  }
  if (!isClusterReady(cluster)) return done();
  const manifest = manifestOf(held);
  if (!manifest) {
    await report(held, notApplied(NO_MANIFEST), deps);
    throw new TerminalError(`Work ${key.namespace}/${key.name}: ${NO_MANIFEST}`);
  }
  try {
    const outcome = await applyManifest(manifest, await deps.memberKind(cluster, manifest), {
      cluster: clusterName,
      beforeCreate: manifest.metadata.namespace
        ? () => syncNamespaceFirst(held, manifest.metadata.namespace!, cluster, deps)
        : undefined,
    });
    if (outcome !== 'unchanged') log.debug({ outcome }, 'applied the manifest to the member');
  } catch (err) {
    await report(held, notApplied(err), deps);
    throw err;
  }
  await report(held, APPLIED, deps);
  return done();
}

/** §5.5: the namespace Work of `namespace` in the same execution space, applied first. */
async function syncNamespaceFirst(
  work: Work,
  namespace: string,
  cluster: Cluster,
  deps: ExecutionDeps,
): Promise<void> {
  const namespaceWork = deps.works.get(work.metadata.namespace, workName('Namespace', namespace));
  const manifest = namespaceWork && !namespaceWork.metadata.deletionTimestamp && manifestOf(namespaceWork);
  if (!manifest) return;
  await applyManifest(manifest, await deps.memberKind(cluster, manifest), {
    cluster: cluster.metadata.name!,
  });
}

/** Writes `desired` as the Work's Applied condition, only when it changes. */
async function report(work: Work, desired: DesiredCondition, deps: ExecutionDeps): Promise<void> {
  const held = work.status?.conditions;
  const conditions = setCondition(held, desired, undefined, deps.now());
  if (held && conditions === held) return;
  await deps.worksClient.patchMerge(
    work.metadata.name!,
    work.metadata.namespace,
    { status: { conditions } },
    { subresource: 'status' },
  );
}

/**
 * A Work change execution acts on: its spec (the generation), its deletion, or its finalizers.
 * Its status — this controller's own Applied writes — and labels are not.
 */
function workChanged(event: InformerEvent<Work>): boolean {
  const { object, previous } = event;
  if (event.type !== 'MODIFIED' || !previous) return true;
  return (
    previous.metadata.generation !== object.metadata.generation ||
    previous.metadata.deletionTimestamp !== object.metadata.deletionTimestamp ||
    !jsonEqual(previous.metadata.finalizers, object.metadata.finalizers)
  );
}

/** A Cluster change that can change what its Works may do. */
function clusterStateChanged(event: InformerEvent<Cluster>): boolean {
  const { object, previous } = event;
  if (event.type !== 'MODIFIED' || !previous) return true;
  return (
    readyStatus(previous) !== readyStatus(object) ||
    previous.metadata.generation !== object.metadata.generation ||
    isDeleting(previous) !== isDeleting(object)
  );
}

export function triggers(works: Informer<Work>, clusters: Informer<Cluster>): Trigger<WorkKey>[] {
  const worksOf = (cluster: Cluster): WorkKey[] =>
    works.store.list(executionSpaceName(cluster.metadata.name!)).map(keyOf);
  return [
    forObject(
      works,
      keyOf,
      (event) => clusterOfExecutionSpace(event.object.metadata.namespace) !== undefined,
      workChanged,
    ),
    watches(clusters, (event) => worksOf(event.object), clusterStateChanged),
  ];
}

function keyOf(work: Work): WorkKey {
  return { namespace: work.metadata.namespace!, name: work.metadata.name! };
}

export const executionController: ControllerDefinition<EngineContext> = {
  name,
  build(ctx: EngineContext): Controller<WorkKey> {
    const works = ctx.hub.informer<Work>(WORKS);
    const clusters = ctx.hub.informer<Cluster>(CLUSTERS);
    const drift = new MemberWatches((trigger) => controller.watch(trigger));
    const deps: ExecutionDeps = {
      works: works.store,
      worksClient: ctx.hub.client<Work>(WORKS),
      clusters: clusters.store,
      memberKind: memberKindAccess(ctx.members, ctx.kinds, drift),
      now: () => ctx.clock.now(),
    };
    const state: ExecutionState = { pullLogged: new Set() };
    const controller: Controller<WorkKey> = engineController(ctx, {
      name,
      reconcile: (key, log) => reconcile(key, deps, state, log),
      toString: workKeyString,
      fromString: workKeyFromString,
      workers: EXECUTION_WORKERS,
      triggers: triggers(works, clusters),
    });
    if (ctx.mode === 'standalone') controller.watch(secretTrigger(ctx.hub, clusters.store, works.store));
    return controller;
  },
};
