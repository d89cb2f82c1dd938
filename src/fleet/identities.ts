/**
 * Identities: who acts in the fleet (DESIGN §3). What each may do is not defined here: every
 * plane of the embedded fleet gets the RBAC base of config/rbac for its kind (rbac-bases.ts,
 * applied at start and when a project plane is provisioned), the same files a deployment applies
 * with `kubectl apply -k`, so the fleet's controllers run under exactly the roles a real cluster
 * grants them. The identities are those bases' ServiceAccounts:
 *
 * - `netpresence-platform` — the platform stand-ins (project planes, hub namespaces, Cluster
 *   readiness, the location projector); the platform itself, so a superuser (no base);
 * - the manager, `netpresence-system:netpresence-manager` (platform, hub, project planes);
 * - the propagation engine, `netpresence-system:netpresence-propagator` (hub, every cell);
 * - a cell's controllers: in its own cell plane `netpresence-system:netpresence-cell`; on the
 *   hub and in project planes (IPAM) its own account `netpresence-cells:<cell>`, which
 *   CellRestriction admission tells apart (`cellOfIdentity`);
 * - the simulated data plane (controllers.md §14), `netpresence-system:netpresence-dataplane`
 *   (every cell, project planes);
 * - the dashboard, `netpresence-system:netpresence-dashboard` (every plane, read-only);
 * - `consumer-<project>` — a project's consumer: config/rbac/hub's role `netpresence-consumer`,
 *   bound by the hub-namespace provisioner in each of that project's hub namespaces.
 *
 * Tokens: a ServiceAccount named alike in every cell (the cell's and the data plane's) is a
 * different account in each, so its token is accepted by that one cell only, as a token the cell
 * issued would be (cell-one's token in cell-two is unknown there: 401); the data plane's account
 * in project planes is accepted by project planes only. The other accounts exist once per plane
 * kind with one role, and their tokens are accepted wherever a base binds them.
 *
 * Guarantees: the tokens minted here carry a ServiceAccount's user and groups, as
 * `kubectl create token` gives them; `consumerRoleBinding` binds config/rbac's consumer role.
 */
import type { KubeObject } from '../apiserver/objects.ts';
import { SERVICE_ACCOUNTS_GROUP, serviceAccountUser } from '../apiserver/auth/token-request.ts';
import { ROOT_PLANE, type ApiServer } from '../apiserver/server.ts';

export const PLATFORM_IDENTITY = 'netpresence-platform';
/** The namespace of the fleet's ServiceAccounts in every plane (config/rbac/<plane>/namespace.yaml). */
export const SYSTEM_NAMESPACE = 'netpresence-system';
/** The namespace of the cells' own accounts on the hub and in project planes. */
export const CELLS_NAMESPACE = 'netpresence-cells';
export const MANAGER_IDENTITY = serviceAccountUser(SYSTEM_NAMESPACE, 'netpresence-manager');
export const PROPAGATOR_IDENTITY = serviceAccountUser(SYSTEM_NAMESPACE, 'netpresence-propagator');
/** A cell's identity in its own cell plane (the same account name in every cell). */
export const CELL_IDENTITY = serviceAccountUser(SYSTEM_NAMESPACE, 'netpresence-cell');
export const DATAPLANE_IDENTITY = serviceAccountUser(SYSTEM_NAMESPACE, 'netpresence-dataplane');
export const DASHBOARD_IDENTITY = serviceAccountUser(SYSTEM_NAMESPACE, 'netpresence-dashboard');
export const CONSUMER_ROLE = 'netpresence-consumer';

/**
 * The user of cell C's ServiceAccount in project planes and on the hub (config/rbac): one per
 * cell, named after it, in `netpresence-cells`.
 */
export const cellServiceAccountUser = (cell: string): string => serviceAccountUser(CELLS_NAMESPACE, cell);

/** The cell among `cells` whose identity `user` is (its ServiceAccount), or undefined. */
export function cellOfIdentity(user: string, cells: readonly string[]): string | undefined {
  return cells.find((cell) => cellServiceAccountUser(cell) === user);
}
export const consumerIdentity = (project: string): string => `consumer-${project}`;

/** The groups of a ServiceAccount's tokens. */
export const serviceAccountGroups = (namespace: string): string[] => [
  SERVICE_ACCOUNTS_GROUP,
  `${SERVICE_ACCOUNTS_GROUP}:${namespace}`,
];

const systemToken = (server: ApiServer, user: string, acceptedBy?: (plane: string) => boolean) =>
  server.createIdentity(user, serviceAccountGroups(SYSTEM_NAMESPACE), acceptedBy);
const projectPlane = (plane: string) => plane.startsWith('project-');

/** The tokens the fleet's controller sets and dashboard act with. */
export const fleetTokens = {
  manager: (server: ApiServer) => systemToken(server, MANAGER_IDENTITY),
  propagator: (server: ApiServer) => systemToken(server, PROPAGATOR_IDENTITY),
  dashboard: (server: ApiServer) => systemToken(server, DASHBOARD_IDENTITY),
  /** Cell C's controllers in cell plane C only. */
  cell: (server: ApiServer, cell: string) => systemToken(server, CELL_IDENTITY, (plane) => plane === cell),
  /** Cell C's own account, on the hub and on the platform (whose tokens reach project planes). */
  cellAbroad: (server: ApiServer, cell: string) =>
    server.createIdentity(
      cellServiceAccountUser(cell),
      serviceAccountGroups(CELLS_NAMESPACE),
      (plane) => plane === 'hub' || plane === ROOT_PLANE || projectPlane(plane),
    ),
  /** The data plane in cell plane C only. */
  dataPlaneCell: (server: ApiServer, cell: string) =>
    systemToken(server, DATAPLANE_IDENTITY, (plane) => plane === cell),
  /** The data plane in project planes only. */
  dataPlaneProjects: (server: ApiServer) => systemToken(server, DATAPLANE_IDENTITY, projectPlane),
};

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** The RoleBinding that lets a project's consumer manage bindings in one of its hub namespaces. */
export function consumerRoleBinding(project: string, hubNamespace: string): KubeObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'RoleBinding',
    metadata: { name: CONSUMER_ROLE, namespace: hubNamespace },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: CONSUMER_ROLE },
    subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: consumerIdentity(project) }],
  };
}
