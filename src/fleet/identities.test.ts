import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RbacAuthorizer, type RequestAttributes } from '../apiserver/auth/rbac.ts';
import { Plane } from '../apiserver/plane.ts';
import { ensureObjects } from './bootstrap.ts';
import {
  CELL_IDENTITY,
  CELLS_NAMESPACE,
  cellOfIdentity,
  cellServiceAccountUser,
  consumerIdentity,
  consumerRoleBinding,
  DASHBOARD_IDENTITY,
  DATAPLANE_IDENTITY,
  MANAGER_IDENTITY,
  PROPAGATOR_IDENTITY,
  serviceAccountGroups,
  SYSTEM_NAMESPACE,
} from './identities.ts';
import { applyRbacBase, type RbacPlane } from './rbac-bases.ts';

const ROLE_BINDINGS = { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings' };
const CLUSTER_ROLES = { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles' };

/** A plane holding config/rbac's base `base`, as the fleet applies it. */
function planeWith(base: RbacPlane): {
  plane: Plane;
  allows(user: string, request: Partial<RequestAttributes>): boolean;
} {
  const plane = new Plane('test', '');
  applyRbacBase(plane, base);
  const authorizer = new RbacAuthorizer(plane.log);
  // A ServiceAccount's token carries its account's groups (identities.ts, fleetTokens).
  const groupsOf = (user: string) =>
    user.startsWith(`system:serviceaccount:${CELLS_NAMESPACE}:`)
      ? serviceAccountGroups(CELLS_NAMESPACE)
      : user.startsWith('system:serviceaccount:')
        ? serviceAccountGroups(SYSTEM_NAMESPACE)
        : [];
  return {
    plane,
    allows: (user, request) =>
      authorizer.authorize(
        { name: user, groups: groupsOf(user) },
        { verb: 'get', group: '', resource: '', resourceRequest: true, ...request },
      ).allowed,
  };
}

const BINDINGS = { group: 'networking.datumapis.com', resource: 'networkbindings' };

describe('fleet identities, under config/rbac', () => {
  it("a consumer manages bindings only in the hub namespaces its project's RoleBindings name", () => {
    const hub = planeWith('hub');
    ensureObjects(hub.plane, { group: '', version: 'v1', plural: 'namespaces' }, [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns-u' } },
    ]);
    ensureObjects(hub.plane, ROLE_BINDINGS, [consumerRoleBinding('alpha', 'ns-u')]);
    const alpha = consumerIdentity('alpha');
    assert.equal(hub.allows(alpha, { ...BINDINGS, verb: 'create', namespace: 'ns-u' }), true);
    assert.equal(hub.allows(alpha, { ...BINDINGS, verb: 'delete', namespace: 'ns-u', name: 'web' }), true);
    assert.equal(hub.allows(alpha, { ...BINDINGS, verb: 'create', namespace: 'ns-v' }), false);
    assert.equal(hub.allows(alpha, { ...BINDINGS, verb: 'list' }), false, 'not across namespaces');
    assert.equal(
      hub.allows(alpha, {
        group: 'networking.datumapis.com',
        resource: 'networkcontexts',
        namespace: 'ns-u',
      }),
      false,
    );
    assert.equal(
      hub.allows(consumerIdentity('beta'), { ...BINDINGS, verb: 'create', namespace: 'ns-u' }),
      false,
    );
  });

  it('the manager writes binding status and Leases on the hub but no Works; the propagator writes Works', () => {
    const hub = planeWith('hub');
    const status = { ...BINDINGS, verb: 'patch', subresource: 'status', namespace: 'ns-u' };
    assert.equal(hub.allows(MANAGER_IDENTITY, status), true);
    assert.equal(hub.allows(MANAGER_IDENTITY, { ...BINDINGS, verb: 'create', namespace: 'ns-u' }), false);
    const lease = { verb: 'update', group: 'coordination.k8s.io', resource: 'leases' };
    assert.equal(hub.allows(MANAGER_IDENTITY, { ...lease, namespace: 'kube-system' }), true);
    assert.equal(hub.allows(MANAGER_IDENTITY, { ...lease, namespace: 'default' }), false);
    const works = { verb: 'create', group: 'work.karmada.io', resource: 'works', namespace: 'karmada-es-a' };
    assert.equal(hub.allows(MANAGER_IDENTITY, works), false);
    assert.equal(hub.allows(PROPAGATOR_IDENTITY, works), true);
    assert.equal(
      hub.allows(PROPAGATOR_IDENTITY, { resource: 'secrets', verb: 'create', namespace: 'x' }),
      false,
    );
  });

  it('a cell works in its own plane, and has IPAM in project planes and its interfaces on the hub', () => {
    const cell = planeWith('cell');
    const claimStatus = {
      group: 'networking.datumapis.com',
      resource: 'networkinterfaceclaims',
      subresource: 'status',
      namespace: 'ns-u',
    };
    assert.equal(cell.allows(CELL_IDENTITY, { ...claimStatus, verb: 'patch' }), true);
    assert.equal(cell.allows(CELL_IDENTITY, { resource: 'namespaces', verb: 'create' }), false);
    assert.equal(cell.allows(cellServiceAccountUser('cell-a'), { ...claimStatus, verb: 'patch' }), false);
    const project = planeWith('project');
    const cellB = cellServiceAccountUser('cell-b');
    const claims = { group: 'ipam.miloapis.com', resource: 'ipclaims', namespace: 'default' };
    assert.equal(project.allows(cellB, { ...claims, verb: 'create' }), true);
    assert.equal(project.allows(cellB, { ...claims, verb: 'delete' }), true);
    for (const verb of ['create', 'update', 'patch', 'delete'])
      assert.equal(project.allows(cellB, { ...claims, resource: 'ippools', verb }), false, `${verb} ippools`);
    const networks = { group: 'networking.datumapis.com', resource: 'networks', namespace: 'default' };
    assert.equal(project.allows(cellB, networks), false);
    const hub = planeWith('hub');
    const interfaces = {
      group: 'networking.datumapis.com',
      resource: 'networkinterfaces',
      namespace: 'ns-u',
    };
    assert.equal(hub.allows(cellB, { ...interfaces, verb: 'create' }), true);
    assert.equal(hub.allows(cellB, { ...BINDINGS, verb: 'list', namespace: 'ns-u' }), false);
  });

  it('tells a cell by its own account only', () => {
    assert.equal(cellOfIdentity(cellServiceAccountUser('cell-b'), ['cell-a', 'cell-b']), 'cell-b');
    assert.equal(cellOfIdentity(CELL_IDENTITY, ['cell-a', 'cell-b']), undefined);
    assert.equal(cellOfIdentity('netpresence-cell-a', ['cell-a']), undefined);
  });

  it('the data plane reads interfaces, claims and Subnets and writes their status only', () => {
    const cell = planeWith('cell');
    const interfaces = {
      group: 'networking.datumapis.com',
      resource: 'networkinterfaces',
      namespace: 'ns-u',
    };
    assert.equal(cell.allows(DATAPLANE_IDENTITY, { ...interfaces, verb: 'watch' }), true);
    assert.equal(
      cell.allows(DATAPLANE_IDENTITY, { ...interfaces, verb: 'patch', subresource: 'status' }),
      true,
    );
    const claims = { ...interfaces, resource: 'networkinterfaceclaims' };
    assert.equal(cell.allows(DATAPLANE_IDENTITY, { ...claims, verb: 'patch', subresource: 'status' }), true);
    assert.equal(cell.allows(DATAPLANE_IDENTITY, { ...interfaces, verb: 'patch' }), false);
    assert.equal(cell.allows(DATAPLANE_IDENTITY, { ...interfaces, verb: 'create' }), false);
    const subnets = { group: 'networking.datumapis.com', resource: 'subnets', namespace: 'default' };
    assert.equal(cell.allows(DATAPLANE_IDENTITY, { ...subnets, verb: 'list' }), true);
    assert.equal(
      cell.allows(DATAPLANE_IDENTITY, { ...subnets, verb: 'patch', subresource: 'status' }),
      false,
    );
    const project = planeWith('project');
    assert.equal(
      project.allows(DATAPLANE_IDENTITY, { ...subnets, verb: 'patch', subresource: 'status' }),
      true,
    );
    assert.equal(project.allows(DATAPLANE_IDENTITY, { ...subnets, verb: 'update' }), false);
    assert.equal(
      project.allows(DATAPLANE_IDENTITY, { ...subnets, resource: 'networkcontexts', verb: 'list' }),
      false,
    );
  });

  it('the dashboard reads every plane and writes nothing, and never reads Secrets', () => {
    const events = { group: 'events.k8s.io', resource: 'events', namespace: 'default' };
    const subnets = { group: 'networking.datumapis.com', resource: 'subnets', namespace: 'ns-u' };
    for (const base of ['platform', 'hub', 'project', 'cell'] as const) {
      const plane = planeWith(base);
      assert.equal(plane.allows(DASHBOARD_IDENTITY, { ...events, verb: 'watch' }), true, base);
      assert.equal(plane.allows(DASHBOARD_IDENTITY, { ...events, verb: 'create' }), false, base);
      if (base !== 'platform') {
        assert.equal(plane.allows(DASHBOARD_IDENTITY, { ...subnets, verb: 'list' }), true, base);
        assert.equal(plane.allows(DASHBOARD_IDENTITY, { ...subnets, verb: 'patch' }), false, base);
      }
      assert.equal(
        plane.allows(DASHBOARD_IDENTITY, { resource: 'secrets', verb: 'list', namespace: 'x' }),
        false,
        base,
      );
    }
  });

  it('applying a base again writes nothing, and puts back a role changed since', () => {
    const hub = planeWith('hub');
    const { plane } = hub;
    const revision = plane.log.revision;
    applyRbacBase(plane, 'hub');
    assert.equal(plane.log.revision, revision);
    ensureObjects(plane, CLUSTER_ROLES, [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'netpresence-manager' },
        rules: [],
      },
    ]);
    const status = { ...BINDINGS, verb: 'patch', subresource: 'status', namespace: 'ns-u' };
    assert.equal(hub.allows(MANAGER_IDENTITY, status), false);
    applyRbacBase(plane, 'hub');
    assert.equal(hub.allows(MANAGER_IDENTITY, status), true);
  });
});
