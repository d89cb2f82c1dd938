import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RbacAuthorizer, type RequestAttributes } from '../apiserver/auth/rbac.ts';
import { Plane } from '../apiserver/plane.ts';
import { ensureObjects } from './bootstrap.ts';
import {
  cellGrants,
  cellIdentity,
  CLUSTER_ROLE_BINDINGS,
  CLUSTER_ROLES,
  consumerIdentity,
  consumerRoleBinding,
  DASHBOARD_IDENTITY,
  DATAPLANE_IDENTITY,
  dataPlaneCellIdentity,
  hubGrants,
  MANAGER_IDENTITY,
  platformGrants,
  PROPAGATOR_IDENTITY,
  projectGrants,
  type Grant,
} from './identities.ts';

const ROLE_BINDINGS = { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings' };

function planeWith(grant: Grant): {
  plane: Plane;
  allows(user: string, request: Partial<RequestAttributes>): boolean;
} {
  const plane = new Plane('test', '');
  ensureObjects(plane, CLUSTER_ROLES, grant.roles);
  ensureObjects(plane, CLUSTER_ROLE_BINDINGS, grant.bindings);
  const authorizer = new RbacAuthorizer(plane.log);
  return {
    plane,
    allows: (user, request) =>
      authorizer.authorize(
        { name: user, groups: [] },
        { verb: 'get', group: '', resource: '', resourceRequest: true, ...request },
      ).allowed,
  };
}

const BINDINGS = { group: 'networking.datumapis.com', resource: 'networkbindings' };

describe('fleet identities', () => {
  it("a consumer manages bindings only in the hub namespaces its project's RoleBindings name", () => {
    const hub = planeWith(hubGrants());
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

  it('the manager writes networking objects and Leases on the hub but no Works; the propagator does anything', () => {
    const hub = planeWith(hubGrants());
    assert.equal(hub.allows(MANAGER_IDENTITY, { ...BINDINGS, verb: 'patch', namespace: 'ns-u' }), true);
    assert.equal(
      hub.allows(MANAGER_IDENTITY, {
        verb: 'update',
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace: 'kube-system',
      }),
      true,
    );
    assert.equal(
      hub.allows(MANAGER_IDENTITY, { verb: 'create', group: 'work.karmada.io', resource: 'works' }),
      false,
    );
    assert.equal(
      hub.allows(PROPAGATOR_IDENTITY, { verb: 'create', group: 'work.karmada.io', resource: 'works' }),
      true,
    );
  });

  it('a cell reaches its own plane and IPAM in project planes, nothing more', () => {
    const cell = planeWith(cellGrants('cell-a'));
    assert.equal(cell.allows(cellIdentity('cell-a'), { verb: 'create', resource: 'namespaces' }), true);
    assert.equal(cell.allows(cellIdentity('cell-b'), { verb: 'get', resource: 'namespaces' }), false);
    const project = planeWith(projectGrants(['cell-a', 'cell-b']));
    const claims = { group: 'ipam.miloapis.com', resource: 'ipclaims', namespace: 'default' };
    assert.equal(project.allows(cellIdentity('cell-b'), { ...claims, verb: 'create' }), true);
    assert.equal(project.allows(cellIdentity('cell-b'), { ...claims, verb: 'delete' }), true);
    const allocations = { ...claims, resource: 'ipallocations' };
    assert.equal(project.allows(cellIdentity('cell-b'), { ...allocations, verb: 'delete' }), true);
    assert.equal(project.allows(cellIdentity('cell-b'), { ...allocations, verb: 'create' }), false);
    for (const resource of ['ippools', 'ipclasses']) {
      assert.equal(project.allows(cellIdentity('cell-b'), { ...claims, resource, verb: 'get' }), true);
      for (const verb of ['create', 'update', 'patch', 'delete']) {
        assert.equal(
          project.allows(cellIdentity('cell-b'), { ...claims, resource, verb }),
          false,
          `${verb} ${resource}`,
        );
      }
    }
    assert.equal(
      project.allows(cellIdentity('cell-b'), {
        group: 'networking.datumapis.com',
        resource: 'networks',
        namespace: 'default',
      }),
      false,
    );
  });

  it('the data plane reads interfaces, claims and Subnets and writes their status only', () => {
    const cell = planeWith(cellGrants('cell-a'));
    const dataPlane = dataPlaneCellIdentity('cell-a');
    const interfaces = {
      group: 'networking.datumapis.com',
      resource: 'networkinterfaces',
      namespace: 'ns-u',
    };
    assert.equal(cell.allows(dataPlane, { ...interfaces, verb: 'watch' }), true);
    assert.equal(cell.allows(dataPlane, { ...interfaces, verb: 'patch', subresource: 'status' }), true);
    assert.equal(cell.allows(dataPlane, { ...interfaces, verb: 'patch' }), false);
    assert.equal(cell.allows(dataPlane, { ...interfaces, verb: 'create' }), false);
    assert.equal(cell.allows(dataPlaneCellIdentity('cell-b'), { ...interfaces, verb: 'list' }), false);
    const subnets = { group: 'networking.datumapis.com', resource: 'subnets', namespace: 'default' };
    assert.equal(cell.allows(DATAPLANE_IDENTITY, { ...subnets, verb: 'list' }), true);
    assert.equal(
      cell.allows(DATAPLANE_IDENTITY, { ...subnets, verb: 'patch', subresource: 'status' }),
      false,
    );
    const project = planeWith(projectGrants(['cell-a']));
    assert.equal(
      project.allows(DATAPLANE_IDENTITY, { ...subnets, verb: 'patch', subresource: 'status' }),
      true,
    );
    assert.equal(project.allows(DATAPLANE_IDENTITY, { ...subnets, verb: 'update' }), false);
    assert.equal(
      project.allows(DATAPLANE_IDENTITY, { ...subnets, resource: 'networkcontexts', verb: 'get' }),
      false,
    );
  });

  it('the dashboard reads every plane and writes nothing, and never reads Secrets', () => {
    const planes = [
      planeWith(hubGrants()),
      planeWith(projectGrants(['cell-a'])),
      planeWith(cellGrants('cell-a')),
    ];
    const bindings = { group: 'networking.datumapis.com', resource: 'networkbindings', namespace: 'ns-u' };
    for (const plane of planes) {
      assert.equal(plane.allows(DASHBOARD_IDENTITY, { ...bindings, verb: 'watch' }), true);
      assert.equal(plane.allows(DASHBOARD_IDENTITY, { ...bindings, verb: 'create' }), false);
      assert.equal(
        plane.allows(DASHBOARD_IDENTITY, { resource: 'secrets', verb: 'list', namespace: 'x' }),
        false,
      );
    }
    const platform = planeWith(platformGrants());
    const events = { group: 'events.k8s.io', resource: 'events', namespace: 'default' };
    assert.equal(platform.allows(DASHBOARD_IDENTITY, { ...events, verb: 'list' }), true);
    assert.equal(platform.allows(DASHBOARD_IDENTITY, { ...events, verb: 'delete' }), false);
  });

  it('storing the same grants again writes nothing', () => {
    const { plane } = planeWith(hubGrants());
    const revision = plane.log.revision;
    ensureObjects(plane, CLUSTER_ROLES, hubGrants().roles);
    ensureObjects(plane, CLUSTER_ROLE_BINDINGS, hubGrants().bindings);
    assert.equal(plane.log.revision, revision);
  });
});
