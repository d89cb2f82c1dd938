/**
 * Scheduler (propagation.md §3, §4.4): writes each binding's `spec.clusters` — every feasible
 * cluster, sorted by name — with the applied-placement annotation, and its scheduling status.
 *
 * Guarantees:
 * - a binding is recomputed when its spec changes and whenever any Cluster is created, deleted,
 *   or changes its labels, spec or `Ready` condition; recomputation is idempotent;
 * - nothing is written when nothing would change: `spec.clusters` and the annotation are
 *   written together by one update, the status by one merge patch, each only when it differs;
 *   `lastScheduledTime` moves only with a write of the rest of the status;
 * - a successful pass sets `Scheduled=True/Success`, `schedulerObservedGeneration` (the
 *   generation its own spec write produced) and, for `clusterAffinities`, the term in use;
 *   no fit empties `spec.clusters` and sets `Scheduled=False/NoClusterFit`, keeping the term;
 * - a binding being deleted is not scheduled.
 */
import { jsonEqual } from '../apis/common/json-equal.ts';
import type { Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import {
  APPLIED_PLACEMENT_ANNOTATION,
  BindingConditionType,
  bindingMessages,
  BindingReason,
} from '../apis/work/v1alpha2/binding-spec.ts';
import type { ControllerDefinition } from '../runtime/manager-context.ts';
import { conditionTime, findCondition, setCondition } from '../runtime/conditions.ts';
import { patchStatus } from '../runtime/writes.ts';
import type { Clock } from '../runtime/clock.ts';
import { type Controller, done, type Outcome, type ReconcilePass } from '../runtime/controller.ts';
import type { InformerEvent } from '../runtime/informer-contract.ts';
import { generationChanged, watches } from '../runtime/triggers.ts';
import type { EngineContext } from './engine-context.ts';
import { bindingController } from './engine-controller.ts';
import { hubView, type Binding, type HubView } from './hub-view.ts';
import { bindingKeyOf, type BindingKey } from './keys.ts';
import { schedule } from './placement.ts';

export const name = 'propagation-scheduler';

/**
 * One pass; `fresh` (a pass after a lost race, `onStale: 'reread'`) reads the binding from the
 * server. What the scheduler loses to is mostly a status write by the status controller, whose
 * event (status only, same generation) never wakes this controller: a retry would otherwise
 * wait out the rate-limited backoff, which a burst of bindings stretches to the token bucket's
 * 10 per second.
 */
export async function reconcile(
  key: BindingKey,
  view: HubView,
  clock: Clock,
  { fresh }: ReconcilePass = { fresh: false },
): Promise<Outcome> {
  const binding = fresh
    ? await view.bindingClient(key.kind).get(key.name, key.namespace || undefined)
    : view.bindings(key.kind).get(key.namespace || undefined, key.name);
  return schedulePass(key, view, clock, binding);
}

async function schedulePass(
  key: BindingKey,
  view: HubView,
  clock: Clock,
  read: Binding | undefined,
): Promise<Outcome> {
  const client = view.bindingClient(key.kind);
  let binding = read;
  if (!binding || binding.metadata.deletionTimestamp) return done();
  const placed = (binding.spec.clusters ?? []).map((cluster) => cluster.name);
  const outcome = schedule({
    placement: binding.spec.placement,
    placed,
    observedAffinityName: binding.status?.schedulerObservingAffinityName,
    clusters: view.clusters.store.list(),
  });
  const clusters = outcome.fit ? outcome.clusters : [];
  const appliedPlacement = JSON.stringify(binding.spec.placement ?? {});
  const specChanged =
    !jsonEqual(clusters, placed) ||
    (binding.spec.clusters ?? []).some((cluster) => Object.keys(cluster).length !== 1);
  if (specChanged || binding.metadata.annotations?.[APPLIED_PLACEMENT_ANNOTATION] !== appliedPlacement) {
    binding = await client.update({
      ...binding,
      metadata: {
        ...binding.metadata,
        annotations: { ...binding.metadata.annotations, [APPLIED_PLACEMENT_ANNOTATION]: appliedPlacement },
      },
      spec: { ...binding.spec, clusters: clusters.map((cluster) => ({ name: cluster })) },
    });
  }
  const now = clock.now();
  const held = binding.status ?? {};
  const conditions = setCondition(
    held.conditions,
    outcome.fit
      ? {
          type: BindingConditionType.Scheduled,
          status: 'True',
          reason: BindingReason.Success,
          message: bindingMessages.scheduled,
        }
      : {
          type: BindingConditionType.Scheduled,
          status: 'False',
          reason: BindingReason.NoClusterFit,
          message: outcome.message,
        },
    undefined,
    now,
  );
  const status: Record<string, unknown> = { conditions };
  if (outcome.fit) {
    status.schedulerObservedGeneration = binding.metadata.generation;
    if (outcome.affinityName !== undefined) status.schedulerObservingAffinityName = outcome.affinityName;
  }
  const changed = Object.entries(status).some(
    ([field, value]) => !jsonEqual((held as Record<string, unknown>)[field], value),
  );
  if (!changed && !specChanged) return done();
  if (outcome.fit) status.lastScheduledTime = conditionTime(now);
  await patchStatus(view.bindingClient(key.kind), binding, status);
  return done();
}

/** A Cluster event that can change a placement: created, deleted, labels, spec or Ready changed. */
export function clusterPlacementChanged(event: InformerEvent<Cluster>): boolean {
  if (event.type !== 'MODIFIED' || !event.previous) return true;
  const before = event.previous;
  const after = event.object;
  return (
    !jsonEqual(before.metadata.labels ?? {}, after.metadata.labels ?? {}) ||
    !jsonEqual(before.spec, after.spec) ||
    before.metadata.deletionTimestamp !== after.metadata.deletionTimestamp ||
    !jsonEqual(
      findCondition(before.status?.conditions, 'Ready')?.status,
      findCondition(after.status?.conditions, 'Ready')?.status,
    )
  );
}

function everyBinding(view: HubView): BindingKey[] {
  return [...view.resourceBindings.store.list(), ...view.clusterResourceBindings.store.list()].map(
    bindingKeyOf,
  );
}

export const schedulerController: ControllerDefinition<EngineContext> = {
  name,
  build(ctx: EngineContext): Controller<BindingKey> {
    const view = hubView(ctx);
    const controller = bindingController(
      ctx,
      view,
      {
        name,
        reconcile: (key, _log, pass) => reconcile(key, view, ctx.clock, pass),
        // What the scheduler loses to is mostly the status controller's write, whose event
        // (status only, same generation) generationChanged filters out: redo from the server.
        onStale: 'reread',
      },
      generationChanged,
    );
    controller.watch(watches(view.clusters, () => everyBinding(view), clusterPlacementChanged));
    return controller;
  },
};
