/**
 * Interface write-back (controllers.md §13.1): keeps a copy `<interface>.<cell>` of every
 * interface of a hub namespace in this cell in that namespace on the hub, so the manager can
 * project it into the project that owns the network.
 *
 * Guarantees:
 * - a hub copy exists exactly while its cell interface is live in a namespace carrying
 *   `meta.datumapis.com/upstream-namespace` and the hub holds that namespace; its content and
 *   labels are those of controllers.md §13 (shared/interface-copy.ts), rewritten on every
 *   change of the interface, of its namespace's labels, of the cell's location identity, and of
 *   the copy itself (an edited or deleted copy is restored at once);
 * - it touches only hub copies labelled `networking.datumapis.com/source-cell=<this cell>`: RBAC
 *   lets the cell write every NetworkInterface on the hub, so the rule is this controller's;
 * - no periodic sweep: the hub copies of this cell are watched, so a copy whose interface went
 *   while the cell was down is deleted as soon as the first list of both stores is in.
 */
import type { Logger } from 'pino';
import { LOCATION_LABEL, NETWORK_LABEL } from '../../apis/common/labels.ts';
import { UPSTREAM_CLUSTER_NAME_LABEL, UPSTREAM_NAMESPACE_LABEL } from '../../apis/common/upstream.ts';
import {
  HELD_BY_LABEL,
  INTERFACE_PROJECTION_LABEL,
  interfaceCopyName,
  interfaceOfCopyName,
  SOURCE_CELL_LABEL,
} from '../../apis/networking/v1alpha/interface-copy.ts';
import type { NetworkInterface } from '../../apis/networking/v1alpha/network-interface.ts';
import { isAlreadyExists, isForbidden, isNotFound } from '../../client/errors.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import { Controller, done, type Outcome } from '../../runtime/controller.ts';
import type { InformerEvent, ObjectStore } from '../../runtime/informer-contract.ts';
import { forObject, watches } from '../../runtime/triggers.ts';
import type { ControllerDefinition } from '../../runtime/manager-context.ts';
import { copySpec, copyStatus, writeCopy, type InterfaceCopy } from '../shared/interface-copy.ts';
import {
  cellView,
  INTERFACES,
  objectKeyOf,
  parseObjectKey,
  type CellContext,
  type ObjectKey,
} from './cell-context.ts';
import type { IdentityHolder } from './identity.ts';

export const name = 'interface-write-back';

export const writeBackMessages = {
  noHub: 'the interface write-back needs the hub: start the cell with --hub-kubeconfig',
  noCellName: 'the interface write-back needs the cell name: start the cell with --cell-name',
};

export interface WriteBackDeps {
  cell: string;
  interfaces: ObjectStore<NetworkInterface>;
  namespaces: ObjectStore;
  identity: IdentityHolder;
  /** Hub copies labelled with this cell. */
  copies: ObjectStore<InterfaceCopy>;
  copyClient: ResourceClient<InterfaceCopy>;
}

export async function reconcile(key: ObjectKey, deps: WriteBackDeps, log: Logger): Promise<Outcome | void> {
  const { namespace, name: interfaceName } = parseObjectKey(key);
  const copyName = interfaceCopyName(interfaceName, deps.cell);
  const iface = deps.interfaces.get(namespace, interfaceName);
  if (!iface || iface.metadata.deletionTimestamp) return deleteCopy(namespace, copyName, deps);
  const upstream = deps.namespaces.get(undefined, namespace)?.metadata.labels ?? {};
  if (!upstream[UPSTREAM_NAMESPACE_LABEL]) return deleteCopy(namespace, copyName, deps);
  const labels: Record<string, string> = {
    [INTERFACE_PROJECTION_LABEL]: 'true',
    [SOURCE_CELL_LABEL]: deps.cell,
    [NETWORK_LABEL]: iface.spec.network.name,
    [UPSTREAM_NAMESPACE_LABEL]: upstream[UPSTREAM_NAMESPACE_LABEL],
  };
  if (upstream[UPSTREAM_CLUSTER_NAME_LABEL])
    labels[UPSTREAM_CLUSTER_NAME_LABEL] = upstream[UPSTREAM_CLUSTER_NAME_LABEL];
  const location = deps.identity.location();
  if (location !== undefined) labels[LOCATION_LABEL] = location;
  if (iface.spec.claimRef?.name) labels[HELD_BY_LABEL] = iface.spec.claimRef.name;
  const held = deps.copies.get(namespace, copyName);
  try {
    await writeCopy(deps.copyClient, held, copyName, namespace, {
      labels,
      spec: copySpec(iface),
      status: copyStatus(iface),
    });
  } catch (err) {
    // Absent or terminating on the hub: its creation reaches the cell as the namespace.
    if (!held && (isNotFound(err) || isForbidden(err))) {
      log.debug({ err }, 'the hub namespace is not open for copies');
      return done();
    }
    // Created since the store was read: its ADDED event wakes this key.
    if (isAlreadyExists(err)) return done();
    throw err;
  }
  return done();
}

async function deleteCopy(namespace: string, copyName: string, deps: WriteBackDeps): Promise<Outcome | void> {
  const held = deps.copies.get(namespace, copyName);
  if (held?.metadata.labels?.[SOURCE_CELL_LABEL] === deps.cell)
    await deps.copyClient.delete(copyName, namespace);
  return done();
}

// ── triggers ───────────────────────────────────────────────────────────────────────────────

/** The cell interface a hub copy of `cell` shows. */
function interfaceOfCopy(cell: string) {
  return (event: InformerEvent<InterfaceCopy>): ObjectKey[] => {
    const iface = interfaceOfCopyName(event.object.metadata.name!, cell);
    return iface === undefined ? [] : [objectKeyOf(event.object.metadata.namespace, iface)];
  };
}

const keyOfInterface = (iface: KubeObject): ObjectKey =>
  objectKeyOf(iface.metadata.namespace, iface.metadata.name!);

export const interfaceWriteBackController: ControllerDefinition<CellContext> = {
  name,
  build(ctx) {
    if (!ctx.hub) throw new Error(writeBackMessages.noHub);
    if (!ctx.cellName) throw new Error(writeBackMessages.noCellName);
    const cell = ctx.cellName;
    const view = cellView(ctx);
    const copies = ctx.hub.informer<InterfaceCopy>(INTERFACES, {
      labelSelector: `${SOURCE_CELL_LABEL}=${cell}`,
    });
    const deps: WriteBackDeps = {
      cell,
      interfaces: view.interfaces.store,
      namespaces: view.namespaces.store,
      identity: ctx.identity,
      copies: copies.store,
      copyClient: ctx.hub.client<InterfaceCopy>(INTERFACES),
    };
    const controller = new Controller<ObjectKey>({
      name,
      reconcile: async (key, log) => reconcile(key, deps, log),
      toString: (key) => key,
      fromString: (key) => (parseObjectKey(key), key),
      workers: 2,
      clock: ctx.clock,
      log: ctx.log,
      metrics: ctx.metrics,
    });
    controller.watch(forObject(view.interfaces, keyOfInterface));
    controller.watch(watches(copies, interfaceOfCopy(cell)));
    controller.watch(
      watches(view.namespaces, (event) =>
        view.interfaces.store.list(event.object.metadata.name).map(keyOfInterface),
      ),
    );
    controller.watch((enqueue) =>
      ctx.identity.onChange(() => {
        for (const iface of view.interfaces.store.list()) enqueue(keyOfInterface(iface));
      }),
    );
    return controller;
  },
};
