/**
 * Upstream labels: how a hub namespace, and every hub copy, names the project plane object it
 * stands for (apis.md §7.2), and how a hub namespace is routed back to its project
 * (controllers.md §1.1).
 *
 * Guarantees: `upstreamClusterName` and `projectOfUpstreamClusterName` round-trip every project
 * name without `_`; a value that decodes to an empty name names no project (undefined). The
 * routing messages are the exact words a `ProjectUnresolved` condition carries.
 *
 * Example: project `project-alpha` ↔ `cluster-project-alpha`; `cluster-_a_b` decodes to `a/b`
 * (one leading `/` stripped); `cluster-` names no project.
 */

export const UPSTREAM_CLUSTER_NAME_LABEL = 'meta.datumapis.com/upstream-cluster-name';
export const UPSTREAM_NAMESPACE_LABEL = 'meta.datumapis.com/upstream-namespace';
export const UPSTREAM_GROUP_LABEL = 'meta.datumapis.com/upstream-group';
export const UPSTREAM_KIND_LABEL = 'meta.datumapis.com/upstream-kind';
export const UPSTREAM_NAME_LABEL = 'meta.datumapis.com/upstream-name';

const CLUSTER_PREFIX = 'cluster-';

/** The `upstream-cluster-name` value of project `project`: every `/` written as `_`. */
export function upstreamClusterName(project: string): string {
  return `${CLUSTER_PREFIX}${project.replaceAll('/', '_')}`;
}

/** The project an `upstream-cluster-name` value names, or undefined when it names none. */
export function projectOfUpstreamClusterName(value: string): string | undefined {
  let decoded = value.replaceAll('_', '/');
  if (decoded.startsWith(CLUSTER_PREFIX)) decoded = decoded.slice(CLUSTER_PREFIX.length);
  if (decoded.startsWith('/')) decoded = decoded.slice(1);
  return decoded === '' ? undefined : decoded;
}

/** The hub namespace of a project namespace: `ns-<metadata.uid of the project namespace>`. */
export function hubNamespaceName(projectNamespaceUid: string): string {
  return `ns-${projectNamespaceUid}`;
}

/** Why a hub (or cell) namespace names no project; each is a `ProjectUnresolved` message. */
export const routingMessages = {
  namespaceNotFound: (namespace: string) => `namespace "${namespace}" was not found`,
  noClusterNameLabel: (namespace: string) =>
    `namespace "${namespace}" carries no ${UPSTREAM_CLUSTER_NAME_LABEL} label`,
  noProject: (namespace: string, value: string) =>
    `namespace "${namespace}" has ${UPSTREAM_CLUSTER_NAME_LABEL}="${value}", which names no project`,
  noNamespaceLabel: (namespace: string) =>
    `namespace "${namespace}" carries no ${UPSTREAM_NAMESPACE_LABEL} label`,
};
