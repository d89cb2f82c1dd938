/**
 * How a component of the propagation engine (propagation.md §0.1) becomes a controller: every
 * one, hub side and member side, runs its keys against the hub, with the engine's clock, log and
 * metrics.
 *
 * Guarantees: `engineController` binds every key's log lines to the hub plane, uses the
 * context's clock, logger and metrics, and watches the given triggers before it is returned;
 * `workers` defaults to the Controller's own (1). `nameKeys` keys a controller by a hub object's
 * name verbatim; `bindingController` keys one by binding and enqueues the key of every
 * ResourceBinding and ClusterResourceBinding event that passes the given predicates.
 */
import {
  Controller,
  ROUND_TRIP_WORKERS,
  type ControllerOptions,
  type StalePolicy,
} from '../runtime/controller.ts';
import { forObject, type Predicate, type Trigger } from '../runtime/triggers.ts';
import type { EngineContext } from './engine-context.ts';
import type { Binding, HubView } from './hub-view.ts';
import { bindingKeyFromString, bindingKeyOf, bindingKeyString, type BindingKey } from './keys.ts';

export interface EngineControllerOptions<K> {
  name: string;
  reconcile: ControllerOptions<K>['reconcile'];
  toString: (key: K) => string;
  fromString: (key: string) => K;
  workers?: number;
  triggers?: readonly Trigger<K>[];
  /** Default 'backoff': the engine's writes cross planes (members, Works) no watch of one controller covers. */
  onStale?: StalePolicy;
}

export function engineController<K>(ctx: EngineContext, options: EngineControllerOptions<K>): Controller<K> {
  const { triggers = [], onStale = 'backoff', ...keys } = options;
  const controller = new Controller<K>({
    ...keys,
    planeOf: () => ctx.hub.name,
    clock: ctx.clock,
    log: ctx.log,
    metrics: ctx.metrics,
    onStale,
  });
  for (const trigger of triggers) controller.watch(trigger);
  return controller;
}

/** Keys that are a hub object's name. */
export const nameKeys = {
  toString: (key: string): string => key,
  fromString: (key: string): string => key,
};

/**
 * A hub-side controller keyed by binding (scheduler, binding sync, status): ROUND_TRIP_WORKERS
 * workers, woken by every event of either binding kind that passes `predicates`.
 */
export function bindingController(
  ctx: EngineContext,
  view: HubView,
  options: Pick<EngineControllerOptions<BindingKey>, 'name' | 'reconcile' | 'onStale'>,
  ...predicates: Predicate<Binding>[]
): Controller<BindingKey> {
  return engineController(ctx, {
    ...options,
    toString: bindingKeyString,
    fromString: bindingKeyFromString,
    workers: ROUND_TRIP_WORKERS,
    triggers: [view.resourceBindings, view.clusterResourceBindings].map((informer) =>
      forObject(informer, (binding) => bindingKeyOf(binding), ...predicates),
    ),
  });
}
