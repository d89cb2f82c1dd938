/**
 * Interface projector (controllers.md §13.2): shows every hub copy of a cell interface in the
 * project plane its hub namespace routes to, next to the Network it is on, so a project can list
 * where its networks are used.
 *
 * Guarantees:
 * - level-triggered on the hub copy `(namespace, name)`: the project copy of the same name exists
 *   exactly while the hub copy is live, its namespace routes to an engaged project plane, and
 *   the Network it names exists there without a deletion timestamp;
 * - the project copy holds the hub copy's spec, status (`phase`, `conditions`) and the labels of
 *   controllers.md §13, plus `source-namespace=<hub namespace>`, and one ownerReference to the
 *   Network (`controller: false`), so deleting the Network collects it even with no manager;
 * - an edited or deleted project copy is restored at once; a project copy without
 *   `source-namespace`, or naming another hub namespace, is never touched;
 * - every change that can flip the answer wakes the key: the hub copy, its hub namespace's
 *   labels, the project copy, the Network (by index), and the plane's engagement.
 */
import { LOCATION_LABEL, NETWORK_LABEL } from '../../apis/common/labels.ts';
import { UPSTREAM_CLUSTER_NAME_LABEL, UPSTREAM_NAMESPACE_LABEL } from '../../apis/common/upstream.ts';
import {
  COPY_SELECTOR,
  HELD_BY_LABEL,
  INTERFACE_PROJECTION_LABEL,
  SOURCE_CELL_LABEL,
  SOURCE_NAMESPACE_LABEL,
} from '../../apis/networking/v1alpha/interface-copy.ts';
import { NETWORKING_API_VERSION } from '../../apis/networking/v1alpha/group.ts';
import { networkInterfaceKind } from '../../apis/networking/v1alpha/network-interface.ts';
import { networkKind } from '../../apis/networking/v1alpha/network.ts';
import { isAlreadyExists, isNotFound } from '../../client/errors.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import { Controller, done, ROUND_TRIP_WORKERS, type Outcome } from '../../runtime/controller.ts';
import type { InformerEvent, ObjectStore } from '../../runtime/informer-contract.ts';
import type { EngagedPlane } from '../../runtime/planes.ts';
import { watches, type Predicate } from '../../runtime/triggers.ts';
import { tupleKey, type KeyOf } from '../../runtime/tuple-key.ts';
import type { ControllerDefinition, ManagerContext } from '../../runtime/manager-context.ts';
import {
  hubNamespacesOf,
  hubNamespacesOfProject,
  namespaceRoutingIndexes,
  routeFromStore,
} from '../shared/hub-routing.ts';
import { copyStatus, writeCopy, type InterfaceCopy } from '../shared/interface-copy.ts';
import { ProjectPlaneWatch, type PlaneWatch } from '../shared/project-plane-watch.ts';
import { NAMESPACES, resourceIdOf } from '../../runtime/resource-ids.ts';

export const name = 'interface-projector';

const INTERFACES = resourceIdOf(networkInterfaceKind);
const NETWORKS = resourceIdOf(networkKind);

/** A hub copy, by where it is on the hub: its hub namespace and name. */
const copyKey = tupleKey('an interface copy key', ['namespace', 'name']);
export type CopyKey = KeyOf<typeof copyKey>;

/** The labels of a hub copy that its project copy carries (controllers.md §13). */
const CARRIED_LABELS = [
  INTERFACE_PROJECTION_LABEL,
  SOURCE_CELL_LABEL,
  LOCATION_LABEL,
  HELD_BY_LABEL,
  NETWORK_LABEL,
  UPSTREAM_CLUSTER_NAME_LABEL,
  UPSTREAM_NAMESPACE_LABEL,
];

/** What a reconcile reads and writes in one project plane. */
export interface ProjectView {
  copies: ObjectStore<InterfaceCopy>;
  copyClient: ResourceClient<InterfaceCopy>;
  networks: ObjectStore;
}

export interface ProjectorDeps {
  hubCopies: ObjectStore<InterfaceCopy>;
  hubNamespaces: ObjectStore;
  projects: ProjectPlaneWatch<CopyKey, ProjectView>;
}

export async function reconcile(key: CopyKey, deps: ProjectorDeps): Promise<Outcome | void> {
  const route = routeFromStore(deps.hubNamespaces, key.namespace);
  if (!route.resolved) return done();
  const view = deps.projects.view(route.project);
  if (!view) return done();
  const hubCopy = deps.hubCopies.get(key.namespace, key.name);
  const networkName = (hubCopy?.spec?.network as { name?: string } | undefined)?.name;
  const network =
    networkName === undefined ? undefined : view.networks.get(route.projectNamespace, networkName);
  const held = view.copies.get(route.projectNamespace, key.name);
  const ours = held?.metadata.labels?.[SOURCE_NAMESPACE_LABEL] === key.namespace;
  if (held && !ours) return done(); // another hub namespace's copy, or not a projection at all
  const desired =
    hubCopy !== undefined &&
    !hubCopy.metadata.deletionTimestamp &&
    network !== undefined &&
    !network.metadata.deletionTimestamp;
  if (!desired) {
    if (held) await view.copyClient.delete(key.name, route.projectNamespace);
    return done();
  }
  try {
    await writeCopy(view.copyClient, held, key.name, route.projectNamespace, {
      labels: projectCopyLabels(hubCopy, key.namespace),
      spec: projectCopySpec(hubCopy),
      status: copyStatus(hubCopy),
      ownerReferences: [
        {
          apiVersion: NETWORKING_API_VERSION,
          kind: 'Network',
          name: network.metadata.name!,
          uid: network.metadata.uid!,
          controller: false,
          blockOwnerDeletion: false,
        },
      ],
    });
  } catch (err) {
    // Created since the store was read (its ADDED event wakes this key), or a namespace that
    // went with the Network's: either way the next event judges again.
    if (isAlreadyExists(err) || (!held && isNotFound(err))) return done();
    throw err;
  }
  return done();
}

function projectCopyLabels(hubCopy: InterfaceCopy, hubNamespace: string): Record<string, string> {
  const source = hubCopy.metadata.labels ?? {};
  const labels: Record<string, string> = {};
  for (const label of CARRIED_LABELS) if (source[label] !== undefined) labels[label] = source[label];
  labels[SOURCE_NAMESPACE_LABEL] = hubNamespace;
  return labels;
}

/** The hub copy's spec; `attachmentMode` is the hub's default, not the interface's. */
function projectCopySpec(hubCopy: InterfaceCopy): Record<string, unknown> {
  const { attachmentMode: _defaulted, claimRef: _claimRef, ...spec } = hubCopy.spec ?? {};
  return spec;
}

// ── keys and indexes ───────────────────────────────────────────────────────────────────────

/** Hub copies by (hub namespace, network label). */
export const BY_NAMESPACE_NETWORK = 'byNamespaceNetwork';

function namespaceNetworkValue(namespace: string, network: string): string {
  return JSON.stringify([namespace, network]);
}

const byNamespaceNetwork = (copy: KubeObject): string[] => {
  const network = copy.metadata.labels?.[NETWORK_LABEL];
  return network === undefined ? [] : [namespaceNetworkValue(copy.metadata.namespace!, network)];
};

/** Module-level, so a shared informer is given the same function by every builder. */
export const hubCopyIndexes = { [BY_NAMESPACE_NETWORK]: byNamespaceNetwork };

const keyOf = (copy: KubeObject): CopyKey => ({
  namespace: copy.metadata.namespace!,
  name: copy.metadata.name!,
});

// ── triggers ───────────────────────────────────────────────────────────────────────────────

/** A Network matters to copies when it comes, goes, or starts deleting. */
const networkLifecycle: Predicate = (event) =>
  event.type !== 'MODIFIED' ||
  event.previous?.metadata.deletionTimestamp !== event.object.metadata.deletionTimestamp ||
  event.previous?.metadata.uid !== event.object.metadata.uid;

function watchProject(
  plane: EngagedPlane,
  hubCopies: ObjectStore<InterfaceCopy>,
  hubNamespaces: ObjectStore,
): PlaneWatch<CopyKey, ProjectView> {
  const copies = plane.informer<InterfaceCopy>(INTERFACES, { labelSelector: COPY_SELECTOR });
  const networks = plane.informer(NETWORKS);
  const copiesOfNetwork = (event: InformerEvent): CopyKey[] =>
    hubNamespacesOf(hubNamespaces, plane.project, event.object.metadata.namespace!).flatMap((namespace) =>
      hubCopies
        .byIndex(BY_NAMESPACE_NETWORK, namespaceNetworkValue(namespace, event.object.metadata.name!))
        .map(keyOf),
    );
  const hubKeyOfProjectCopy = (event: InformerEvent<InterfaceCopy>): CopyKey[] => {
    const source = event.object.metadata.labels?.[SOURCE_NAMESPACE_LABEL];
    return source ? [{ namespace: source, name: event.object.metadata.name! }] : [];
  };
  return {
    view: {
      copies: copies.store,
      copyClient: plane.client<InterfaceCopy>(INTERFACES),
      networks: networks.store,
    },
    informers: [copies, networks],
    triggers: [watches(copies, hubKeyOfProjectCopy), watches(networks, copiesOfNetwork, networkLifecycle)],
    keys: () =>
      hubNamespacesOfProject(hubNamespaces, plane.project).flatMap((namespace) =>
        hubCopies.list(namespace).map(keyOf),
      ),
  };
}

export const interfaceProjectorController: ControllerDefinition = {
  name,
  build(ctx: ManagerContext): Controller<CopyKey> {
    const hubCopies = ctx.hub.informer<InterfaceCopy>(INTERFACES, {
      labelSelector: COPY_SELECTOR,
      indexes: hubCopyIndexes,
    });
    const hubNamespaces = ctx.hub.informer(NAMESPACES, { indexes: namespaceRoutingIndexes });
    const projects = new ProjectPlaneWatch<CopyKey, ProjectView>(ctx.projects, (plane) =>
      watchProject(plane, hubCopies.store, hubNamespaces.store),
    );
    const deps: ProjectorDeps = { hubCopies: hubCopies.store, hubNamespaces: hubNamespaces.store, projects };
    const controller = new Controller<CopyKey>({
      name,
      reconcile: async (key) => reconcile(key, deps),
      toString: copyKey.toString,
      fromString: copyKey.fromString,
      workers: ROUND_TRIP_WORKERS,
      clock: ctx.clock,
      log: ctx.log,
      metrics: ctx.metrics,
    });
    controller.watch(watches(hubCopies, (event) => [keyOf(event.object)]));
    controller.watch(
      watches(hubNamespaces, (event) => hubCopies.store.list(event.object.metadata.name).map(keyOf)),
    );
    controller.watch(projects.trigger());
    return controller;
  },
};
