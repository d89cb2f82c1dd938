/**
 * Status (propagation.md §4.2, §4.4): each binding's `aggregatedStatus` — one item per live Work,
 * sorted by cluster name — and its `FullyApplied` condition, from the Works' `Applied`
 * conditions.
 *
 * Guarantees: `FullyApplied` is True only when `spec.clusters` is non-empty, the binding has
 * exactly one live Work per listed cluster and no other, and every one is `Applied=True`; a Work
 * without an `Applied` condition counts as not applied. `health` is always `Unknown` and no
 * member status is collected. The status is written only when it changes, guarded by the
 * binding's resourceVersion; a write refused as stale is redone when the binding's event arrives
 * (every binding event wakes this controller), never after a backoff.
 */
import type { Work } from '../apis/work/v1alpha1/work.ts';
import { WorkConditionType } from '../apis/work/v1alpha1/work.ts';
import { BindingConditionType, bindingMessages, BindingReason } from '../apis/work/v1alpha2/binding-spec.ts';
import type { ControllerDefinition } from '../runtime/manager-context.ts';
import { findCondition, setCondition } from '../runtime/conditions.ts';
import { patchStatus } from '../runtime/writes.ts';
import type { Clock } from '../runtime/clock.ts';
import { type Controller, done, type Outcome } from '../runtime/controller.ts';
import { watches } from '../runtime/triggers.ts';
import { bindingKeyOfWork, clusterOfWork, worksOf } from './binding-sync.ts';
import type { EngineContext } from './engine-context.ts';
import { bindingController } from './engine-controller.ts';
import { hubView, type Binding, type HubView } from './hub-view.ts';
import type { BindingKey } from './keys.ts';

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

export async function reconcile(key: BindingKey, view: HubView, clock: Clock): Promise<Outcome> {
  const binding = view.bindings(key.kind).get(key.namespace || undefined, key.name);
  if (!binding || binding.metadata.deletionTimestamp) return done();
  const items = aggregate(worksOf(binding, key.kind, view));
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
    return controller;
  },
};
