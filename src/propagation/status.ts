/**
 * Status (propagation.md §4.2, §4.4): each binding's `aggregatedStatus` — one item per live Work,
 * sorted by cluster name — and its `FullyApplied` condition, from the Works' `Applied`
 * conditions, once there is something to report (`nothingToReportYet`): not before the scheduler
 * answers, nor while every Work is still to be created or still to be applied by execution.
 *
 * Guarantees: `FullyApplied` is True only when `spec.clusters` is non-empty, the binding has
 * exactly one live Work per listed cluster and no other, and every one is `Applied=True`; a Work
 * without an `Applied` condition counts as not applied. `health` is always `Unknown` and no
 * member status is collected. The status is written only when it changes, guarded by the
 * binding's resourceVersion; a write refused as stale is redone when the binding's event arrives
 * (every binding event wakes this controller), never after a backoff.
 */
import type { Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import type { Work } from '../apis/work/v1alpha1/work.ts';
import { executionSpaceName, WorkConditionType } from '../apis/work/v1alpha1/work.ts';
import { BindingConditionType, bindingMessages, BindingReason } from '../apis/work/v1alpha2/binding-spec.ts';
import type { ControllerDefinition } from '../runtime/manager-context.ts';
import { findCondition, setCondition } from '../runtime/conditions.ts';
import { patchStatus } from '../runtime/writes.ts';
import type { Clock } from '../runtime/clock.ts';
import { type Controller, done, type Outcome } from '../runtime/controller.ts';
import type { ObjectStore } from '../runtime/informer-contract.ts';
import { watches, type Predicate } from '../runtime/triggers.ts';
import { bindingKeyOfWork, clusterOfWork, worksOf } from './binding-sync.ts';
import type { EngineContext } from './engine-context.ts';
import { bindingController } from './engine-controller.ts';
import { hubView, type Binding, type HubView } from './hub-view.ts';
import type { BindingKey } from './keys.ts';
import { isClusterReady, isDeleting, isPull, readyStatus } from './member/cluster-state.ts';

export const name = 'propagation-status';

export interface AggregatedItem {
  clusterName: string;
  applied: boolean;
  appliedMessage?: string;
  health: 'Unknown';
}

export function aggregate(works: readonly Work[]): AggregatedItem[] {
  return works
    .filter((work) => !work.metadata.deletionTimestamp)
    .map((work) => {
      const applied = findCondition(work.status?.conditions, WorkConditionType.Applied);
      const item: AggregatedItem = {
        clusterName: clusterOfWork(work),
        applied: applied?.status === 'True',
        health: 'Unknown',
      };
      if (applied && applied.status !== 'True') item.appliedMessage = applied.message;
      return item;
    })
    .sort((a, b) => (a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0));
}

export function fullyApplied(binding: Binding, items: readonly AggregatedItem[]): boolean {
  const clusters = (binding.spec.clusters ?? []).map((cluster) => cluster.name);
  if (clusters.length === 0 || items.length !== clusters.length) return false;
  const live = new Set(items.map((item) => item.clusterName));
  return (
    live.size === items.length &&
    clusters.every((cluster) => live.has(cluster)) &&
    items.every((item) => item.applied)
  );
}

/**
 * A live Work execution is about to report: no `Applied` condition yet, on a Cluster that
 * exists, is not being deleted, is in Push mode and `Ready=True` (execution reports every such
 * Work, `True` or `False`, and its write wakes this controller).
 */
export function awaitsExecution(work: Work, clusters: ObjectStore<Cluster>): boolean {
  if (work.metadata.deletionTimestamp || findCondition(work.status?.conditions, WorkConditionType.Applied))
    return false;
  const cluster = clusters.get(undefined, clusterOfWork(work));
  return cluster !== undefined && !isDeleting(cluster) && !isPull(cluster) && isClusterReady(cluster);
}

/**
 * A binding with nothing to report yet, as Karmada's binding controller writes a binding's status
 * only once it is scheduled and its Works ensured: it holds no `FullyApplied` of this controller's,
 * and either the scheduler has not answered, or it named clusters and every Work for them is
 * still to be created or still to be applied by execution (`awaitsExecution`). So a new binding
 * gets no `FullyApplied=False` that the next event would at once replace. The scheduler's status
 * write, binding sync's creates, execution's `Applied` writes and every readiness, mode or
 * deletion change of a Cluster wake it. A binding scheduled onto no cluster is reported at once.
 */
export function nothingToReportYet(
  binding: Binding,
  works: readonly Work[],
  clusters: ObjectStore<Cluster>,
): boolean {
  const conditions = binding.status?.conditions;
  if (findCondition(conditions, BindingConditionType.FullyApplied)) return false;
  if (!findCondition(conditions, BindingConditionType.Scheduled))
    return works.every((work) => awaitsExecution(work, clusters));
  return (binding.spec.clusters ?? []).length > 0 && works.every((work) => awaitsExecution(work, clusters));
}

export async function reconcile(key: BindingKey, view: HubView, clock: Clock): Promise<Outcome> {
  const binding = view.bindings(key.kind).get(key.namespace || undefined, key.name);
  if (!binding || binding.metadata.deletionTimestamp) return done();
  const works = worksOf(binding, key.kind, view);
  if (nothingToReportYet(binding, works, view.clusters.store)) return done();
  const items = aggregate(works);
  const conditions = setCondition(
    binding.status?.conditions,
    fullyApplied(binding, items)
      ? {
          type: BindingConditionType.FullyApplied,
          status: 'True',
          reason: BindingReason.FullyAppliedSuccess,
          message: bindingMessages.fullyApplied,
        }
      : {
          type: BindingConditionType.FullyApplied,
          status: 'False',
          reason: BindingReason.FullyAppliedFailed,
          message: bindingMessages.notFullyApplied,
        },
    undefined,
    clock.now(),
  );
  await patchStatus(view.bindingClient(key.kind), binding, { aggregatedStatus: items, conditions });
  return done();
}

/** A Cluster change that can decide whether execution applies its Works. */
const clusterExecutionChanged: Predicate<Cluster> = (event) =>
  event.type !== 'MODIFIED' ||
  event.previous === undefined ||
  readyStatus(event.previous) !== readyStatus(event.object) ||
  isPull(event.previous) !== isPull(event.object) ||
  isDeleting(event.previous) !== isDeleting(event.object);

export const statusController: ControllerDefinition<EngineContext> = {
  name,
  build(ctx: EngineContext): Controller<BindingKey> {
    const view = hubView(ctx);
    // Its one write is the binding's status, guarded by the binding's resourceVersion: a 409 or
    // 404 means the binding changed or went, and that event (every binding event wakes this
    // controller) re-queues the key — no backoff to wait out.
    const controller = bindingController(ctx, view, {
      name,
      reconcile: (key) => reconcile(key, view, ctx.clock),
      onStale: 'watch',
    });
    controller.watch(
      watches(view.works, (event) => {
        const key = bindingKeyOfWork(event.object);
        return key ? [key] : [];
      }),
    );
    // A Work left for execution to report may never be applied once its Cluster changes.
    controller.watch(
      watches(
        view.clusters,
        (event) =>
          view.works.store
            .list(executionSpaceName(event.object.metadata.name!))
            .flatMap((work) => bindingKeyOfWork(work) ?? []),
        clusterExecutionChanged,
      ),
    );
    return controller;
  },
};
