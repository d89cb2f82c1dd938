/**
 * RBAC escalation prevention through the real HTTP API (issue 13, finding 4): an identity that
 * may write Roles and RoleBindings grants only what it holds itself, unless it may `escalate`
 * or `bind`, and is refused as Kubernetes refuses it (403, the same wording), storing nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/apiserver.ts';
import { call, type PlaneTarget } from '../support/child-server.ts';
import { identityWithRole, RBAC, targetOf } from '../support/hostile.ts';

const ROLES = `/apis/${RBAC}/v1/namespaces/team/roles`;
const BINDINGS = `/apis/${RBAC}/v1/namespaces/team/rolebindings`;
const CLUSTER_ROLES = `/apis/${RBAC}/v1/clusterroles`;

const binding = (name: string, kind: 'Role' | 'ClusterRole', role: string) => ({
  metadata: { name },
  roleRef: { apiGroup: RBAC, kind, name: role },
  subjects: [{ apiGroup: RBAC, kind: 'User', name: 'mallory' }],
});

describe('RBAC escalation prevention', () => {
  let t: TestServer;
  let admin: PlaneTarget;
  let binder: PlaneTarget;

  function snapshot(): string {
    const plane = t.server.plane('hub')!;
    return `${plane.log.revision}|${JSON.stringify(plane.log.list(`${RBAC}/roles`))}|${JSON.stringify(plane.log.list(`${RBAC}/rolebindings`))}`;
  }

  async function refused(res: { status: number; body: string }): Promise<string> {
    assert.equal(res.status, 403, res.body);
    const status = JSON.parse(res.body);
    assert.equal(status.reason, 'Forbidden');
    return status.message;
  }

  before(async () => {
    t = await startTestServer(['hub']);
    admin = targetOf(t.server, 'hub', t.server.adminToken);
    assert.equal(
      (await call(admin, 'POST', '/api/v1/namespaces', { metadata: { name: 'team' } })).status,
      201,
    );
    // A role granting Secret access, and the engine's kind of all-powerful ClusterRole.
    assert.equal(
      (
        await call(admin, 'POST', ROLES, {
          metadata: { name: 'secret-reader' },
          rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }],
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await call(admin, 'POST', CLUSTER_ROLES, {
          metadata: { name: 'everything' },
          rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
        })
      ).status,
      201,
    );
    // `binder` may write Roles and RoleBindings in `team`, and read ConfigMaps; no Secrets.
    binder = await identityWithRole(t.server, 'hub', 'team', 'binder', [
      {
        apiGroups: [RBAC],
        resources: ['roles', 'rolebindings'],
        verbs: ['create', 'update', 'patch', 'get'],
      },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
    ]);
  });
  after(async () => {
    admin.agent.destroy();
    binder.agent.destroy();
    await t.stop();
  });

  it('refuses binding a role that grants Secret access to one without it, 403 as Kubernetes words it, and allows it once it holds that access', async () => {
    const before = snapshot();
    const message = await refused(
      await call(binder, 'POST', BINDINGS, binding('read-secrets', 'Role', 'secret-reader')),
    );
    assert.equal(
      message,
      'rolebindings.rbac.authorization.k8s.io "read-secrets" is forbidden: user "binder" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    );
    assert.equal(snapshot(), before, 'nothing was stored');

    // The admin grants binder Secret access in `team`: now the same binding is allowed.
    assert.equal(
      (
        await call(admin, 'POST', BINDINGS, {
          ...binding('binder-secrets', 'Role', 'secret-reader'),
          subjects: [{ apiGroup: RBAC, kind: 'User', name: 'binder' }],
        })
      ).status,
      201,
    );
    const res = await call(binder, 'POST', BINDINGS, binding('read-secrets', 'Role', 'secret-reader'));
    assert.equal(res.status, 201, res.body);
  });

  it('refuses binding the all-powerful ClusterRole and creating a Role with * on *', async () => {
    const before = snapshot();
    const bound = await refused(
      await call(binder, 'POST', BINDINGS, binding('take-all', 'ClusterRole', 'everything')),
    );
    assert.match(
      bound,
      /is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}/,
    );
    const created = await refused(
      await call(binder, 'POST', ROLES, {
        metadata: { name: 'all' },
        rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
      }),
    );
    assert.match(
      created,
      /^roles.rbac.authorization.k8s.io "all" is forbidden: user "binder" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/,
    );
    // Widening an existing Role is the same escalation.
    const own = await call(binder, 'POST', ROLES, {
      metadata: { name: 'narrow' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    });
    assert.equal(own.status, 201, own.body);
    const afterOwn = snapshot();
    await refused(
      await call(
        binder,
        'PATCH',
        `${ROLES}/narrow`,
        { rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['*'] }] },
        'application/merge-patch+json',
      ),
    );
    assert.equal(snapshot(), afterOwn);
    assert.notEqual(before, afterOwn);
  });

  it('allows binding a role to one who may `bind` it, and writing a role to one who may `escalate`', async () => {
    const trusted = await identityWithRole(t.server, 'hub', 'team', 'trusted', [
      { apiGroups: [RBAC], resources: ['roles', 'rolebindings'], verbs: ['create'] },
      { apiGroups: [RBAC], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['everything'] },
      { apiGroups: [RBAC], resources: ['roles'], verbs: ['escalate'] },
    ]);
    try {
      const bound = await call(
        trusted,
        'POST',
        BINDINGS,
        binding('bound-by-trusted', 'ClusterRole', 'everything'),
      );
      assert.equal(bound.status, 201, bound.body);
      const role = await call(trusted, 'POST', ROLES, {
        metadata: { name: 'wide' },
        rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
      });
      assert.equal(role.status, 201, role.body);
      // `bind` on one ClusterRole is not `bind` on another.
      assert.equal(
        (
          await call(admin, 'POST', CLUSTER_ROLES, {
            metadata: { name: 'other' },
            rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['delete'] }],
          })
        ).status,
        201,
      );
      await refused(await call(trusted, 'POST', BINDINGS, binding('other', 'ClusterRole', 'other')));
    } finally {
      trusted.agent.destroy();
    }
  });
});
