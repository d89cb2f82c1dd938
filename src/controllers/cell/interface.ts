/**
 * Interface controller (controllers.md §11): gives a NetworkInterface the release finalizer while
 * it lives, and when it is deleted releases its addresses in IPAM — unless a live claim holds it,
 * in which case the claim rebuilds it on the same IPClaims and only what the claim's spec does
 * not ask for is released (S137: an adopted, retained interface may hold a family the claim does
 * not want, which the rebuilt interface would not hold; the spec is silent on it).
 *
 * Guarantees: the finalizer is removed only after the addresses are released (or left to a live
 * claim), then the hold of the interface's network is run, so a context it kept can go.
 */
import type { Logger } from 'pino';
import type { NetworkInterfaceClaim } from '../../apis/networking/v1alpha/network-interface-claim.ts';
import {
  NETWORKINTERFACE_RELEASE_FINALIZER,
  type NetworkInterface,
} from '../../apis/networking/v1alpha/network-interface.ts';
import { Controller, done, type Outcome } from '../../runtime/controller.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';
import { ensureFinalizer, hasFinalizer, removeFinalizer } from '../../runtime/finalizer.ts';
import { forObject } from '../../runtime/triggers.ts';
import type { ControllerDefinition } from '../../runtime/manager-context.ts';
import { cellView, objectKeyOf, parseObjectKey, type CellContext, type ObjectKey } from './cell-context.ts';
import { ipClaimsOfClaim, releaseInterfaceAddresses, type ReleaseDeps } from './claim-release.ts';
import { holdNetwork } from './context-hold.ts';

export const name = 'interface';

export interface InterfaceDeps extends Omit<ReleaseDeps, 'claimClient'> {
  claims: ObjectStore<NetworkInterfaceClaim>;
}

export async function reconcile(key: ObjectKey, deps: InterfaceDeps, log: Logger): Promise<Outcome> {
  const { namespace, name: interfaceName } = parseObjectKey(key);
  const iface = deps.interfaces.get(namespace, interfaceName);
  if (!iface) return done();
  if (!iface.metadata.deletionTimestamp) {
    await ensureFinalizer(deps.interfaceClient, iface, NETWORKINTERFACE_RELEASE_FINALIZER);
    return done();
  }
  if (!hasFinalizer(iface, NETWORKINTERFACE_RELEASE_FINALIZER)) return done();
  const holder = iface.spec.claimRef?.name;
  const claim = holder === undefined ? undefined : deps.claims.get(namespace, holder);
  const live = claim !== undefined && !claim.metadata.deletionTimestamp;
  // A live claim rebuilds the interface on the IPClaims its spec asks for: those stay.
  const kept = new Set(live ? ipClaimsOfClaim(claim, deps.cell) : []);
  if (live) log.debug({ claim: holder }, 'held by a live claim; releasing only what it does not ask for');
  await releaseInterfaceAddresses(iface, deps, kept);
  await removeFinalizer(deps.interfaceClient, iface, NETWORKINTERFACE_RELEASE_FINALIZER);
  await holdNetwork(namespace, iface.spec.network.name, deps);
  return done();
}

export const interfaceController: ControllerDefinition<CellContext> = {
  name,
  build(ctx) {
    const view = cellView(ctx);
    const deps: InterfaceDeps = {
      claims: view.claims.store,
      interfaces: view.interfaces.store,
      contexts: view.contexts.store,
      namespaces: view.namespaces.store,
      interfaceClient: view.interfaceClient,
      contextClient: view.contextClient,
      ipam: ctx.ipam,
      cell: ctx.cellName,
    };
    const controller = new Controller<ObjectKey>({
      name,
      reconcile: (key, log) => reconcile(key, deps, log),
      toString: (key) => key,
      fromString: (key) => (parseObjectKey(key), key),
      workers: 2,
      clock: ctx.clock,
      log: ctx.log,
      metrics: ctx.metrics,
    });
    controller.watch(
      forObject(view.interfaces, (iface: NetworkInterface) =>
        objectKeyOf(iface.metadata.namespace, iface.metadata.name!),
      ),
    );
    return controller;
  },
};
