/**
 * Context hold (controllers.md §12): keeps a propagated NetworkContext alive, with the finalizer
 * `networkcontext-in-use`, while a live NetworkInterface in its namespace is on its network — so
 * a hub-side teardown cannot strand an address an interface still holds.
 *
 * Guarantees: the hold is keyed on the context, so a first look taken while the last interface
 * is still terminating is corrected by that interface's delete event, which maps back to the
 * context; an interface event reaches the context of the resolved location and every context of
 * its network in the namespace (also one of a location the cell no longer serves); the finalizer
 * is added only to a live context and removed whenever nothing holds it; a write happens only
 * when the finalizer must change. `holdNetwork` is what the claim and interface controllers call;
 * it needs no identity.
 */
import {
  NETWORKCONTEXT_IN_USE_FINALIZER,
  networkContextName,
  type NetworkContext,
} from '../../apis/networking/v1alpha/network-context.ts';
import type { NetworkInterface } from '../../apis/networking/v1alpha/network-interface.ts';
import type { ResourceClient } from '../../client/types.ts';
import { Controller, done, type Outcome } from '../../runtime/controller.ts';
import type { InformerEvent, ObjectStore } from '../../runtime/informer-contract.ts';
import { ensureFinalizer, removeFinalizer } from '../../runtime/finalizer.ts';
import { forObject, watches } from '../../runtime/triggers.ts';
import type { ControllerDefinition } from '../../runtime/manager-context.ts';
import {
  BY_NETWORK,
  cellView,
  networkValue,
  objectKeyOf,
  parseObjectKey,
  type CellContext,
  type ObjectKey,
} from './cell-context.ts';
import type { IdentityHolder } from './identity.ts';

export const name = 'context-hold';

export interface HoldDeps {
  contexts: ObjectStore<NetworkContext>;
  interfaces: ObjectStore<NetworkInterface>;
  contextClient: ResourceClient<NetworkContext>;
}

/**
 * Hold `(ns, C)`. `alsoLive` is an interface this reconcile just created, which the store may
 * not show yet.
 */
export async function holdContext(
  namespace: string,
  contextName: string,
  deps: HoldDeps,
  alsoLive?: NetworkInterface,
): Promise<void> {
  const context = deps.contexts.get(namespace, contextName);
  if (!context) return;
  const network = context.spec.network.name;
  const held =
    (alsoLive !== undefined &&
      alsoLive.spec.network.name === network &&
      !alsoLive.metadata.deletionTimestamp) ||
    deps.interfaces
      .byIndex(BY_NETWORK, networkValue(namespace, network))
      .some((iface) => !iface.metadata.deletionTimestamp);
  if (held && !context.metadata.deletionTimestamp)
    await ensureFinalizer(deps.contextClient, context, NETWORKCONTEXT_IN_USE_FINALIZER);
  else if (!held) await removeFinalizer(deps.contextClient, context, NETWORKCONTEXT_IN_USE_FINALIZER);
}

/** The hold for every context in `namespace` on `network` (§12 index). */
export async function holdNetwork(
  namespace: string,
  network: string,
  deps: HoldDeps,
  alsoLive?: NetworkInterface,
): Promise<void> {
  for (const context of deps.contexts.byIndex(BY_NETWORK, networkValue(namespace, network)))
    await holdContext(namespace, context.metadata.name!, deps, alsoLive);
}

/** The contexts an interface event reaches: `<N>-<resolved location>`, and every context of N in its namespace. */
export function contextsOfInterface(identity: IdentityHolder, contexts: ObjectStore<NetworkContext>) {
  return (event: InformerEvent<NetworkInterface>): ObjectKey[] => {
    const { namespace } = event.object.metadata;
    const network = event.object.spec.network.name;
    const keys = new Set<ObjectKey>();
    const location = identity.location();
    if (location !== undefined) keys.add(objectKeyOf(namespace, networkContextName(network, location)));
    for (const context of contexts.byIndex(BY_NETWORK, networkValue(namespace, network)))
      keys.add(objectKeyOf(namespace, context.metadata.name!));
    return [...keys];
  };
}

export const contextHoldController: ControllerDefinition<CellContext> = {
  name,
  build(ctx) {
    const view = cellView(ctx);
    const deps: HoldDeps = {
      contexts: view.contexts.store,
      interfaces: view.interfaces.store,
      contextClient: view.contextClient,
    };
    const controller = new Controller<ObjectKey>({
      name,
      reconcile: async (key): Promise<Outcome> => {
        const { namespace, name: contextName } = parseObjectKey(key);
        await holdContext(namespace, contextName, deps);
        return done();
      },
      toString: (key) => key,
      fromString: (key) => (parseObjectKey(key), key),
      workers: 2,
      clock: ctx.clock,
      log: ctx.log,
      metrics: ctx.metrics,
    });
    controller.watch(
      forObject(view.contexts, (context) => objectKeyOf(context.metadata.namespace, context.metadata.name!)),
    );
    controller.watch(watches(view.interfaces, contextsOfInterface(ctx.identity, view.contexts.store)));
    controller.watch((enqueue) =>
      ctx.identity.onChange(() => {
        for (const context of view.contexts.store.list())
          enqueue(objectKeyOf(context.metadata.namespace, context.metadata.name!));
      }),
    );
    return controller;
  },
};
