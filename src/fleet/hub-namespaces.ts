/**
 * Hub-namespace provisioner: the fleet's stand-in for the consumer platform, which gives every
 * namespace of every project plane a hub namespace `ns-<uid>` labelled with its upstream
 * (apis.md §7.2) and lets the project's consumer identity manage NetworkBindings there.
 *
 * Guarantees:
 * - while project namespace `N` of engaged project `P` exists (and is not terminating), the hub
 *   holds Namespace `ns-<uid of N>` labelled `upstream-cluster-name=cluster-P`,
 *   `upstream-namespace=N` and `app.kubernetes.io/managed-by=netpresence-fleet`, with the
 *   RoleBinding `netpresence-consumer` granting `consumer-P` its NetworkBindings;
 * - a hub namespace this provisioner wrote is deleted when its project namespace goes, or when
 *   its Project goes from the platform; a hub namespace without the managed-by label is never
 *   touched; a project whose plane is merely not engaged yet keeps its hub namespaces;
 * - system namespaces (`kube-*`, and `netpresence-system` and `netpresence-cells`, which hold
 *   the fleet's own ServiceAccounts from config/rbac/project) of a project plane get no hub
 *   namespace: no consumer uses them.
 */
import { MANAGED_BY_LABEL } from '../apis/networking/v1alpha/location-binding.ts';
import {
  hubNamespaceName,
  projectOfUpstreamClusterName,
  upstreamClusterName,
  UPSTREAM_CLUSTER_NAME_LABEL,
  UPSTREAM_NAMESPACE_LABEL,
} from '../apis/common/upstream.ts';
import { projectKind, type Project } from '../apis/resourcemanager/v1alpha1/project.ts';
import { AlreadyExistsError } from '../client/errors.ts';
import type { KubeObject, ResourceClient, ResourceId } from '../client/types.ts';
import type { ControllerDefinition, ManagerContext } from '../runtime/manager-context.ts';
import { ProjectPlaneWatch, type PlaneWatch } from '../controllers/shared/project-plane-watch.ts';
import { NAMESPACES, resourceIdOf } from '../runtime/resource-ids.ts';
import { Controller, ROUND_TRIP_WORKERS } from '../runtime/controller.ts';
import type { ObjectStore } from '../runtime/informer-contract.ts';
import { projectPlaneName, type EngagedPlane } from '../runtime/planes.ts';
import { forObject, watches } from '../runtime/triggers.ts';
import { CELLS_NAMESPACE, CONSUMER_ROLE, consumerRoleBinding, SYSTEM_NAMESPACE } from './identities.ts';

export const name = 'hub-namespaces';

export const FLEET_MANAGER = 'netpresence-fleet';
const MANAGED_SELECTOR = `${MANAGED_BY_LABEL}=${FLEET_MANAGER}`;

export const ROLE_BINDINGS: ResourceId = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'RoleBinding',
  plural: 'rolebindings',
  namespaced: true,
};

export interface ProjectNamespaceKey {
  project: string;
  namespace: string;
}

export interface HubNamespaceDeps {
  projects: ObjectStore<Project>;
  /** Project-plane Namespaces, per engaged project. */
  planes: ProjectPlaneWatch<ProjectNamespaceKey, ObjectStore>;
  /** Hub Namespaces this provisioner wrote. */
  hubNamespaces: ObjectStore;
  consumerBindings: ObjectStore;
  namespaceClient: ResourceClient;
  roleBindingClient: ResourceClient;
}

export const isSystemNamespace = (namespace: string): boolean =>
  namespace.startsWith('kube-') || namespace === SYSTEM_NAMESPACE || namespace === CELLS_NAMESPACE;

export async function reconcile(key: ProjectNamespaceKey, deps: HubNamespaceDeps): Promise<void> {
  const wanted = desiredHubNamespace(key, deps);
  if (wanted === UNKNOWN) return;
  for (const held of heldFor(key, deps.hubNamespaces))
    if (held.metadata.name !== wanted && !held.metadata.deletionTimestamp)
      await deps.namespaceClient.delete(held.metadata.name!, undefined, {
        preconditions: { uid: held.metadata.uid },
      });
  if (wanted) await ensureHubNamespace(key, wanted, deps);
}

/** Wait: the project's plane has not listed, or its Project exists but is not engaged. */
const UNKNOWN = Symbol('unknown');

/** The hub namespace `key` should have: its name, undefined for none, or UNKNOWN. */
function desiredHubNamespace(
  key: ProjectNamespaceKey,
  deps: HubNamespaceDeps,
): string | undefined | typeof UNKNOWN {
  const namespaces = deps.planes.view(key.project);
  if (!namespaces) {
    const project = deps.projects.get(undefined, key.project);
    return project && !project.metadata.deletionTimestamp ? UNKNOWN : undefined;
  }
  const namespace = namespaces.get(undefined, key.namespace);
  if (!namespace || namespace.metadata.deletionTimestamp || isSystemNamespace(key.namespace))
    return undefined;
  return hubNamespaceName(namespace.metadata.uid!);
}

function heldFor(key: ProjectNamespaceKey, hubNamespaces: ObjectStore): KubeObject[] {
  return hubNamespaces.byIndex(BY_PROJECT_NAMESPACE, pairValue(key));
}

async function ensureHubNamespace(
  key: ProjectNamespaceKey,
  name: string,
  deps: HubNamespaceDeps,
): Promise<void> {
  const held = deps.hubNamespaces.get(undefined, name);
  if (held?.metadata.deletionTimestamp) return; // its deletion ends in an event that wakes this key
  if (!held) {
    await createUnlessPresent(deps.namespaceClient, {
      metadata: {
        name,
        labels: {
          [UPSTREAM_CLUSTER_NAME_LABEL]: upstreamClusterName(key.project),
          [UPSTREAM_NAMESPACE_LABEL]: key.namespace,
          [MANAGED_BY_LABEL]: FLEET_MANAGER,
        },
      },
    });
  }
  if (!deps.consumerBindings.get(name, CONSUMER_ROLE)) {
    const binding = consumerRoleBinding(key.project, name);
    binding.metadata.labels = { [MANAGED_BY_LABEL]: FLEET_MANAGER };
    await createUnlessPresent(deps.roleBindingClient, binding);
  }
}

/** Creates `object`; one already there (the store had not caught up) is what was wanted. */
async function createUnlessPresent(client: ResourceClient, object: KubeObject): Promise<void> {
  try {
    await client.create(object);
  } catch (err) {
    if (!(err instanceof AlreadyExistsError)) throw err;
  }
}

// ---- triggers -------------------------------------------------------------------------------

const PROJECTS = resourceIdOf(projectKind);
const BY_PROJECT_NAMESPACE = 'byProjectNamespace';
const BY_PROJECT = 'byProject';

const pairValue = (key: ProjectNamespaceKey): string => JSON.stringify([key.project, key.namespace]);

/** The (project, namespace) a managed hub namespace stands for, from its labels. */
function upstreamOf(hubNamespace: KubeObject): ProjectNamespaceKey | undefined {
  const labels = hubNamespace.metadata.labels ?? {};
  const project = projectOfUpstreamClusterName(labels[UPSTREAM_CLUSTER_NAME_LABEL] ?? '');
  const namespace = labels[UPSTREAM_NAMESPACE_LABEL];
  return project && namespace ? { project, namespace } : undefined;
}

/** How the store of managed hub namespaces is indexed: by (project, namespace) and by project. */
export const hubNamespaceIndexes = {
  [BY_PROJECT_NAMESPACE]: (ns: KubeObject): string[] => {
    const upstream = upstreamOf(ns);
    return upstream ? [pairValue(upstream)] : [];
  },
  [BY_PROJECT]: (ns: KubeObject): string[] => {
    const upstream = upstreamOf(ns);
    return upstream ? [upstream.project] : [];
  },
};

function keyFromString(value: string): ProjectNamespaceKey {
  const [project, namespace] = JSON.parse(value) as [string, string];
  return { project, namespace };
}

function watchPlane(hubNamespaces: ObjectStore) {
  return (plane: EngagedPlane): PlaneWatch<ProjectNamespaceKey, ObjectStore> => {
    const project = plane.project;
    const namespaces = plane.informer(NAMESPACES);
    return {
      view: namespaces.store,
      informers: [namespaces],
      triggers: [forObject(namespaces, (namespace) => ({ project, namespace: namespace.metadata.name! }))],
      keys: () => [
        ...namespaces.store.list().map((namespace) => ({ project, namespace: namespace.metadata.name! })),
        ...hubNamespaces.byIndex(BY_PROJECT, project).map((held) => upstreamOf(held)!),
      ],
    };
  };
}

function buildHubNamespaces(ctx: ManagerContext): Controller<ProjectNamespaceKey> {
  const projects = ctx.platform.informer<Project>(PROJECTS);
  const hubNamespaces = ctx.hub.informer(NAMESPACES, {
    labelSelector: MANAGED_SELECTOR,
    indexes: hubNamespaceIndexes,
  });
  const consumerBindings = ctx.hub.informer(ROLE_BINDINGS, { labelSelector: MANAGED_SELECTOR });
  const planes = new ProjectPlaneWatch(ctx.projects, watchPlane(hubNamespaces.store));
  const deps: HubNamespaceDeps = {
    projects: projects.store,
    planes,
    hubNamespaces: hubNamespaces.store,
    consumerBindings: consumerBindings.store,
    namespaceClient: ctx.hub.client(NAMESPACES),
    roleBindingClient: ctx.hub.client(ROLE_BINDINGS),
  };
  const controller = new Controller<ProjectNamespaceKey>({
    name,
    reconcile: (key) => reconcile(key, deps),
    toString: pairValue,
    fromString: keyFromString,
    planeOf: (key) => projectPlaneName(key.project),
    workers: ROUND_TRIP_WORKERS,
    clock: ctx.clock,
    log: ctx.log,
    metrics: ctx.metrics,
  });
  controller.watch(planes.trigger());
  const upstreamKeys = (object: KubeObject): ProjectNamespaceKey[] => {
    const upstream = upstreamOf(object);
    return upstream ? [upstream] : [];
  };
  controller.watch(watches(hubNamespaces, (event) => upstreamKeys(event.object)));
  controller.watch(
    watches(consumerBindings, (event) => {
      const held = hubNamespaces.store.get(undefined, event.object.metadata.namespace!);
      return held ? upstreamKeys(held) : [];
    }),
  );
  controller.watch(
    watches(projects, (event) =>
      hubNamespaces.store.byIndex(BY_PROJECT, event.object.metadata.name!).flatMap(upstreamKeys),
    ),
  );
  return controller;
}

export const hubNamespaceProvisioner: ControllerDefinition = {
  name,
  build: buildHubNamespaces,
};
