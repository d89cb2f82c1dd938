/**
 * Location identity controller (controllers.md §9): resolves which location this cell serves
 * from the ServingLocations delivered to it (and `--location`), holds the answer for the claim
 * and hold controllers, and shows it on the identity gauges.
 *
 * Guarantees: one key, `identity`, reconciled once at start and on every ServingLocation event;
 * a changed answer is handed to the IdentityHolder, whose listeners wake every claim and every
 * context (the claim and hold controllers subscribe). It writes nothing to any API.
 */
import { Controller, done, type Outcome } from '../../runtime/controller.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';
import type { Logger } from '../../runtime/logging.ts';
import { forObject } from '../../runtime/triggers.ts';
import type { ControllerDefinition } from '../../runtime/manager-context.ts';
import type { ServingLocation } from '../../apis/networking/v1alpha/serving-location.ts';
import { cellView, type CellContext } from './cell-context.ts';
import type { CellMetrics } from './cell-metrics.ts';
import { resolveIdentity, type IdentityHolder } from './identity.ts';

export const name = 'location-identity';

const IDENTITY_KEY = 'identity';

export interface LocationIdentityDeps {
  servingLocations: ObjectStore<ServingLocation>;
  identity: IdentityHolder;
  configuredLocation?: string;
  metrics: CellMetrics;
}

export function reconcile(deps: LocationIdentityDeps, log: Logger): Outcome {
  const delivered = deps.servingLocations.list().map((location) => location.metadata.name!);
  const next = resolveIdentity(delivered, deps.configuredLocation);
  if (next.resolved && next.mismatch !== undefined)
    log.warn(
      { delivered: next.location, configured: next.mismatch },
      'the delivered ServingLocation differs from the configured location; the delivered one is used',
    );
  if (deps.identity.replace(next)) log.info({ identity: next }, 'location identity changed');
  deps.metrics.showIdentity(next);
  return done();
}

export const locationIdentityController: ControllerDefinition<CellContext> = {
  name,
  build(ctx) {
    const view = cellView(ctx);
    const deps: LocationIdentityDeps = {
      servingLocations: view.servingLocations.store,
      identity: ctx.identity,
      configuredLocation: ctx.configuredLocation,
      metrics: ctx.cellMetrics,
    };
    const controller = new Controller<string>({
      name,
      reconcile: async (_key, log) => reconcile(deps, log),
      toString: (key) => key,
      fromString: (key) => key,
      clock: ctx.clock,
      log: ctx.log,
      metrics: ctx.metrics,
    });
    controller.watch(forObject(view.servingLocations, () => IDENTITY_KEY));
    controller.enqueue(IDENTITY_KEY);
    return controller;
  },
};
