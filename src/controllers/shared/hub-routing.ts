/**
 * Hub-namespace routing (controllers.md §1.1): which project namespace a hub namespace — or a
 * cell namespace, a propagated copy of one — stands for, read from its upstream labels.
 *
 * Guarantees: `routeNamespace` answers from the Namespace object alone, checking in the spec's
 * order, and every refusal carries the exact `ProjectUnresolved` message; `clusterNameLabel` is
 * the raw label value, for writers that copy it. The two store indexes, `byProjectNamespace`
 * and `byProject`, decode exactly as `routeNamespace` does, so a namespace that does not resolve
 * is in neither. The index functions are module-level constants: a shared informer accepts an
 * index name twice only with the same function.
 *
 * Example: `ns-1234` labelled `cluster-project-alpha` / `default` routes to
 * `{project: project-alpha, projectNamespace: default}` and is filed under
 * `projectNamespaceKey('project-alpha', 'default')` and `projectKey('project-alpha')`.
 */
import {
  projectOfUpstreamClusterName,
  routingMessages,
  UPSTREAM_CLUSTER_NAME_LABEL,
  UPSTREAM_NAMESPACE_LABEL,
} from '../../apis/common/upstream.ts';
import type { KubeObject } from '../../client/types.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';

export interface ResolvedNamespace {
  resolved: true;
  project: string;
  projectNamespace: string;
  /** The raw `meta.datumapis.com/upstream-cluster-name` value. */
  clusterNameLabel: string;
}

export interface UnresolvedNamespace {
  resolved: false;
  /** Why it names no project: a `ProjectUnresolved` message. */
  message: string;
}

export type NamespaceRoute = ResolvedNamespace | UnresolvedNamespace;

/** Routes namespace `name`, given its object as a store holds it (undefined: absent). */
export function routeNamespace(name: string, namespace: KubeObject | undefined): NamespaceRoute {
  if (!namespace) return { resolved: false, message: routingMessages.namespaceNotFound(name) };
  const labels = namespace.metadata.labels ?? {};
  const clusterNameLabel = labels[UPSTREAM_CLUSTER_NAME_LABEL] ?? '';
  if (clusterNameLabel === '') return { resolved: false, message: routingMessages.noClusterNameLabel(name) };
  const project = projectOfUpstreamClusterName(clusterNameLabel);
  if (project === undefined)
    return { resolved: false, message: routingMessages.noProject(name, clusterNameLabel) };
  const projectNamespace = labels[UPSTREAM_NAMESPACE_LABEL] ?? '';
  if (projectNamespace === '') return { resolved: false, message: routingMessages.noNamespaceLabel(name) };
  return { resolved: true, project, projectNamespace, clusterNameLabel };
}

/** Routes namespace `name` as the Namespace store holds it. */
export function routeFromStore(store: ObjectStore, name: string): NamespaceRoute {
  return routeNamespace(name, store.get(undefined, name));
}

export const BY_PROJECT_NAMESPACE = 'byProjectNamespace';
export const BY_PROJECT = 'byProject';

/** The `byProjectNamespace` index value of (project, project namespace). */
export function projectNamespaceKey(project: string, projectNamespace: string): string {
  return JSON.stringify([project, projectNamespace]);
}

/** The `byProject` index value of a project. */
export function projectKey(project: string): string {
  return project;
}

const byProjectNamespace = (namespace: KubeObject): string[] => {
  const route = routeNamespace(namespace.metadata.name ?? '', namespace);
  return route.resolved ? [projectNamespaceKey(route.project, route.projectNamespace)] : [];
};

const byProject = (namespace: KubeObject): string[] => {
  const route = routeNamespace(namespace.metadata.name ?? '', namespace);
  return route.resolved ? [projectKey(route.project)] : [];
};

/** The indexes of a hub (or cell) Namespace informer. */
export const namespaceRoutingIndexes = {
  [BY_PROJECT_NAMESPACE]: byProjectNamespace,
  [BY_PROJECT]: byProject,
};

/** Names of the hub namespaces that stand for `projectNamespace` of `project`. */
export function hubNamespacesOf(store: ObjectStore, project: string, projectNamespace: string): string[] {
  return store
    .byIndex(BY_PROJECT_NAMESPACE, projectNamespaceKey(project, projectNamespace))
    .map((namespace) => namespace.metadata.name!);
}

/** Names of the hub namespaces that stand for any namespace of `project`. */
export function hubNamespacesOfProject(store: ObjectStore, project: string): string[] {
  return store.byIndex(BY_PROJECT, projectKey(project)).map((namespace) => namespace.metadata.name!);
}
