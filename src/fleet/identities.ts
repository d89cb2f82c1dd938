/**
 * Identities: who acts in the fleet and what RBAC lets each do, plane by plane (DESIGN §3).
 *
 * - `netpresence-platform` — the platform stand-ins (project planes, hub namespaces, Cluster
 *   readiness, the location projector); the platform itself, so a superuser;
 * - `netpresence-manager` — the controllers of `netpresence manager`: reads the platform, and
 *   works with networking, policy and IPAM objects, Leases and Events on the hub and in project
 *   planes (NetworkInterfaces in project planes: the interface projector's copies);
 * - `netpresence-propagator` — the propagation engine: everything on the hub and in every cell;
 * - `netpresence-<cell>` — one cell's controllers: everything in its own cell plane; in every
 *   project plane it reads IPAM and writes IPClaims and IPAllocations, which CellRestriction
 *   admission narrows to those labelled with its own cell (`cellOfIdentity` tells it who is a
 *   cell), never IPPools or IPClasses; on the hub NetworkInterfaces only (the write-back of its
 *   interfaces, controllers.md §13.1); nothing else;
 * - `netpresence-dataplane-<cell>` — the simulated data plane in one cell (controllers.md §14):
 *   reads NetworkInterfaces and NetworkInterfaceClaims there and writes their `status`, nothing else;
 * - `netpresence-dataplane` — its project part: reads Subnets in project planes and in cells, and
 *   writes a project Subnet's `status`, nothing else;
 * - `netpresence-dashboard` — the dashboard `netpresence up` serves: reads (get, list, watch) what
 *   netpresence and the platform write, in every plane — never Secrets, never a write;
 * - `consumer-<project>` — a project's consumer: NetworkBindings (and reading the Namespace) in
 *   that project's hub namespaces only, through a RoleBinding the hub-namespace provisioner
 *   writes into each of them.
 *
 * Guarantees: every function here returns the RBAC objects a plane of that kind needs (the
 * consumer's role read from config/rbac/hub, the rest built here); the fleet stores them with
 * `ensureObjects`.
 */
import type { KubeObject } from '../apiserver/objects.ts';
import type { StoredKind } from './bootstrap.ts';
import { baseRole } from './rbac-bases.ts';

export const PLATFORM_IDENTITY = 'netpresence-platform';
export const MANAGER_IDENTITY = 'netpresence-manager';
export const PROPAGATOR_IDENTITY = 'netpresence-propagator';
export const CONSUMER_ROLE = 'netpresence-consumer';
export const CELL_ROLE = 'netpresence-cell';
export const DATAPLANE_IDENTITY = 'netpresence-dataplane';
export const DATAPLANE_CELL_ROLE = 'netpresence-dataplane-cell';
export const DASHBOARD_IDENTITY = 'netpresence-dashboard';

export const cellIdentity = (cell: string): string => `netpresence-${cell}`;

/**
 * The user of cell C's ServiceAccount in project planes and on the hub (config/rbac): one per
 * cell, named after it, in `netpresence-cells`.
 */
export const cellServiceAccountUser = (cell: string): string =>
  `system:serviceaccount:netpresence-cells:${cell}`;

/** The cell among `cells` whose identity `user` is (the fleet's, or its ServiceAccount), or undefined. */
export function cellOfIdentity(user: string, cells: readonly string[]): string | undefined {
  return cells.find((cell) => cellIdentity(cell) === user || cellServiceAccountUser(cell) === user);
}
export const consumerIdentity = (project: string): string => `consumer-${project}`;
export const dataPlaneCellIdentity = (cell: string): string => `netpresence-dataplane-${cell}`;

const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const CLUSTER_ROLES: StoredKind = { group: RBAC_GROUP, version: 'v1', plural: 'clusterroles' };
export const CLUSTER_ROLE_BINDINGS: StoredKind = {
  group: RBAC_GROUP,
  version: 'v1',
  plural: 'clusterrolebindings',
};

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const ALL = ['*'];
const READ = ['get', 'list', 'watch'];
const rule = (apiGroups: string[], resources: string[], verbs: string[]): Rule => ({
  apiGroups,
  resources,
  verbs,
});

const NETWORKING = 'networking.datumapis.com';
const IPAM = 'ipam.miloapis.com';
const COORDINATION = 'coordination.k8s.io';
const EVENTS = 'events.k8s.io';

/** Leases for elections and Events for what controllers report, wherever a controller runs. */
const RUNTIME_RULES = [
  rule([COORDINATION], ['leases'], ALL),
  rule([EVENTS], ['events'], ALL),
  rule([''], ['events'], ALL),
  rule([''], ['namespaces'], READ),
];

const STATUS_WRITE = ['get', 'update', 'patch'];
const INTERFACES = ['networkinterfaces', 'networkinterfaceclaims'];

function dataPlaneCellRules(): Rule[] {
  return [
    rule([NETWORKING], INTERFACES, READ),
    rule(
      [NETWORKING],
      INTERFACES.map((resource) => `${resource}/status`),
      STATUS_WRITE,
    ),
  ];
}

function dataPlaneSubnetRules(writeStatus: boolean): Rule[] {
  const rules = [rule([NETWORKING], ['subnets'], READ)];
  if (writeStatus) rules.push(rule([NETWORKING], ['subnets/status'], STATUS_WRITE));
  return rules;
}

/** What the dashboard reads: every kind netpresence shows, and Events; no Secrets, no writes. */
function dashboardGrant(): Grant {
  const groups = [
    NETWORKING,
    IPAM,
    EVENTS,
    'policy.karmada.io',
    'cluster.karmada.io',
    'resourcemanager.miloapis.com',
    'services.miloapis.com',
  ];
  return grant(
    DASHBOARD_IDENTITY,
    [rule(groups, ALL, READ), rule([''], ['namespaces', 'events'], READ)],
    [DASHBOARD_IDENTITY],
  );
}

function clusterRole(name: string, rules: Rule[]): KubeObject {
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name }, rules };
}

function clusterRoleBinding(role: string, users: string[]): KubeObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: role },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects: users.map((name) => ({ apiGroup: RBAC_GROUP, kind: 'User', name })),
  };
}

/** A grant of one role to some users in a plane: a ClusterRole and its ClusterRoleBinding. */
export interface Grant {
  roles: KubeObject[];
  bindings: KubeObject[];
}

function grant(role: string, rules: Rule[], users: string[]): Grant {
  return { roles: [clusterRole(role, rules)], bindings: [clusterRoleBinding(role, users)] };
}

function merge(...grants: Grant[]): Grant {
  return { roles: grants.flatMap((g) => g.roles), bindings: grants.flatMap((g) => g.bindings) };
}

export function platformGrants(): Grant {
  return merge(
    grant(
      MANAGER_IDENTITY,
      [
        rule(
          ['resourcemanager.miloapis.com', 'networking.datumapis.com', 'services.miloapis.com'],
          ALL,
          READ,
        ),
        // The location publisher records its Warnings (MissingCityCode, …) on the platform's Locations.
        rule([EVENTS], ['events'], ['create']),
      ],
      [MANAGER_IDENTITY],
    ),
    dashboardGrant(),
  );
}

/** What a cell may do on the hub: its interface copies (their status included), nothing else. */
const CELL_HUB_RULES = [
  rule(
    [NETWORKING],
    ['networkinterfaces', 'networkinterfaces/status'],
    ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  ),
];

export function hubGrants(cells: string[] = []): Grant {
  return merge(
    grant(
      MANAGER_IDENTITY,
      [
        rule([NETWORKING, 'policy.karmada.io'], ALL, ALL),
        rule(['cluster.karmada.io', 'work.karmada.io'], ALL, READ),
        ...RUNTIME_RULES,
      ],
      [MANAGER_IDENTITY],
    ),
    grant(PROPAGATOR_IDENTITY, [rule(ALL, ALL, ALL)], [PROPAGATOR_IDENTITY]),
    grant(CELL_ROLE, CELL_HUB_RULES, cells.map(cellIdentity)),
    // Bound per hub namespace by the hub-namespace provisioner, never cluster-wide; the role is
    // config/rbac/hub's, as a deployment applies it.
    { roles: [baseRole('hub', 'ClusterRole', CONSUMER_ROLE)], bindings: [] },
    dashboardGrant(),
  );
}

export function projectGrants(cells: string[]): Grant {
  return merge(
    grant(MANAGER_IDENTITY, [rule([NETWORKING, IPAM], ALL, ALL), ...RUNTIME_RULES], [MANAGER_IDENTITY]),
    grant(CELL_ROLE, cellIpamRules(), cells.map(cellIdentity)),
    grant(DATAPLANE_IDENTITY, dataPlaneSubnetRules(true), [DATAPLANE_IDENTITY]),
    dashboardGrant(),
  );
}

/** What a cell may do with IPAM in a project plane; CellRestriction narrows writes to its own. */
export function cellIpamRules(): Rule[] {
  return [
    rule([IPAM], ALL, READ),
    rule([IPAM], ['ipclaims'], ['create', 'update', 'patch', 'delete']),
    rule([IPAM], ['ipallocations'], ['update', 'patch', 'delete']),
  ];
}

export function cellGrants(cell: string): Grant {
  return merge(
    grant(CELL_ROLE, [rule(ALL, ALL, ALL)], [cellIdentity(cell)]),
    grant(PROPAGATOR_IDENTITY, [rule(ALL, ALL, ALL)], [PROPAGATOR_IDENTITY]),
    grant(DATAPLANE_CELL_ROLE, dataPlaneCellRules(), [dataPlaneCellIdentity(cell)]),
    grant(DATAPLANE_IDENTITY, dataPlaneSubnetRules(false), [DATAPLANE_IDENTITY]),
    dashboardGrant(),
  );
}

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
