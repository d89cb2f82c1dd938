import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RevisionLog } from '../storage/revision-log.ts';
import { RbacAuthorizer, forbiddenError, type RequestAttributes } from './rbac.ts';
import type { Identity } from './tokens.ts';

const RBAC = 'rbac.authorization.k8s.io';

interface Rule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}
type Subject = { kind: string; name: string; namespace?: string };
type RoleRef = { kind: string; name: string };

function role(log: RevisionLog, namespace: string, name: string, rules: Rule[]): void {
  log.put(`${RBAC}/roles`, `${namespace}/${name}`, { kind: 'Role', metadata: { namespace, name }, rules });
}

function clusterRole(log: RevisionLog, name: string, rules: Rule[]): void {
  log.put(`${RBAC}/clusterroles`, `/${name}`, { kind: 'ClusterRole', metadata: { name }, rules });
}

function roleBinding(
  log: RevisionLog,
  namespace: string,
  name: string,
  roleRef: RoleRef,
  subjects: Subject[],
) {
  log.put(`${RBAC}/rolebindings`, `${namespace}/${name}`, {
    kind: 'RoleBinding',
    metadata: { namespace, name },
    roleRef: { apiGroup: RBAC, ...roleRef },
    subjects,
  });
}

function clusterRoleBinding(log: RevisionLog, name: string, roleRef: RoleRef, subjects: Subject[]) {
  log.put(`${RBAC}/clusterrolebindings`, `/${name}`, {
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: RBAC, ...roleRef },
    subjects,
  });
}

const request = (
  verb: string,
  resource: string,
  extra: Partial<RequestAttributes> = {},
): RequestAttributes => ({
  verb,
  group: '',
  resource,
  resourceRequest: true,
  ...extra,
});

const nonResource = (verb: string, path: string): RequestAttributes => ({
  verb,
  group: '',
  resource: '',
  path,
  resourceRequest: false,
});

const alice: Identity = { name: 'alice', groups: [] };
const bob: Identity = { name: 'bob', groups: [] };
const readConfigMaps: Rule[] = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }];

describe('rbac authorizer', () => {
  it('allows a system:masters identity everything without any binding', () => {
    const rbac = new RbacAuthorizer(new RevisionLog());
    const admin = { name: 'admin', groups: ['system:masters'] };
    assert.deepEqual(rbac.authorize(admin, request('delete', 'namespaces', { name: 'x' })), {
      allowed: true,
      reason: '',
    });
    assert.equal(rbac.authorize(admin, nonResource('get', '/metrics')).allowed, true);
    assert.equal(rbac.authorize(alice, request('get', 'namespaces')).allowed, false);
  });

  it('grants a Role bound in one namespace there and nowhere else', () => {
    const log = new RevisionLog();
    role(log, 'a', 'reader', readConfigMaps);
    roleBinding(log, 'a', 'read', { kind: 'Role', name: 'reader' }, [{ kind: 'User', name: 'alice' }]);
    // A Role of the same name elsewhere is not the one a binding in "a" refers to.
    role(log, 'b', 'reader', readConfigMaps);
    const rbac = new RbacAuthorizer(log);
    assert.deepEqual(rbac.authorize(alice, request('get', 'configmaps', { namespace: 'a', name: 'x' })), {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "read/a" of Role "reader" to User "alice"',
    });
    assert.equal(
      rbac.authorize(alice, request('get', 'configmaps', { namespace: 'b', name: 'x' })).allowed,
      false,
    );
    assert.equal(rbac.authorize(alice, request('list', 'configmaps')).allowed, false);
    assert.equal(rbac.authorize(alice, request('delete', 'configmaps', { namespace: 'a' })).allowed, false);
    assert.equal(rbac.authorize(bob, request('get', 'configmaps', { namespace: 'a' })).allowed, false);
  });

  it('grants a ClusterRole bound by a RoleBinding only inside the binding namespace', () => {
    const log = new RevisionLog();
    clusterRole(log, 'view', readConfigMaps);
    roleBinding(log, 'a', 'view', { kind: 'ClusterRole', name: 'view' }, [{ kind: 'User', name: 'alice' }]);
    const rbac = new RbacAuthorizer(log);
    assert.deepEqual(rbac.authorize(alice, request('list', 'configmaps', { namespace: 'a' })), {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "view/a" of ClusterRole "view" to User "alice"',
    });
    assert.equal(rbac.authorize(alice, request('list', 'configmaps', { namespace: 'b' })).allowed, false);
    assert.equal(rbac.authorize(alice, request('list', 'configmaps')).allowed, false);
  });

  it('grants a ClusterRole bound by a ClusterRoleBinding in every namespace and at the cluster scope', () => {
    const log = new RevisionLog();
    clusterRole(log, 'view', [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps', 'namespaces'] },
    ]);
    clusterRoleBinding(log, 'view-all', { kind: 'ClusterRole', name: 'view' }, [
      { kind: 'User', name: 'alice' },
    ]);
    const rbac = new RbacAuthorizer(log);
    for (const namespace of ['a', 'b', undefined]) {
      assert.deepEqual(rbac.authorize(alice, request('list', 'configmaps', { namespace })), {
        allowed: true,
        reason: 'RBAC: allowed by ClusterRoleBinding "view-all" of ClusterRole "view" to User "alice"',
      });
    }
    assert.equal(rbac.authorize(alice, request('get', 'namespaces', { name: 'a' })).allowed, true);
    assert.equal(rbac.authorize(alice, request('create', 'namespaces')).allowed, false);
  });

  it('matches Group subjects by membership and counts every identity in system:authenticated', () => {
    const log = new RevisionLog();
    clusterRole(log, 'view', readConfigMaps);
    clusterRole(log, 'edit', [{ verbs: ['update'], apiGroups: [''], resources: ['configmaps'] }]);
    clusterRoleBinding(log, 'everyone', { kind: 'ClusterRole', name: 'view' }, [
      { kind: 'Group', name: 'system:authenticated' },
    ]);
    roleBinding(log, 'a', 'editors', { kind: 'ClusterRole', name: 'edit' }, [
      { kind: 'Group', name: 'editors' },
    ]);
    const rbac = new RbacAuthorizer(log);
    const editor = { name: 'carol', groups: ['editors'] };
    assert.deepEqual(rbac.authorize(alice, request('get', 'configmaps', { namespace: 'a' })), {
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "everyone" of ClusterRole "view" to Group "system:authenticated"',
    });
    assert.equal(rbac.authorize(editor, request('update', 'configmaps', { namespace: 'a' })).allowed, true);
    assert.equal(rbac.authorize(alice, request('update', 'configmaps', { namespace: 'a' })).allowed, false);
    assert.equal(
      rbac.authorize({ name: 'editors', groups: [] }, request('update', 'configmaps')).allowed,
      false,
    );
  });

  it('matches a ServiceAccount subject as its user name, defaulting its namespace to the RoleBinding one', () => {
    const log = new RevisionLog();
    clusterRole(log, 'view', readConfigMaps);
    roleBinding(log, 'a', 'local', { kind: 'ClusterRole', name: 'view' }, [
      { kind: 'ServiceAccount', name: 'bot' },
    ]);
    clusterRoleBinding(log, 'remote', { kind: 'ClusterRole', name: 'view' }, [
      { kind: 'ServiceAccount', name: 'robot', namespace: 'b' },
    ]);
    clusterRoleBinding(log, 'unqualified', { kind: 'ClusterRole', name: 'view' }, [
      { kind: 'ServiceAccount', name: 'bot' },
    ]);
    roleBinding(log, 'c', 'as-user', { kind: 'ClusterRole', name: 'view' }, [
      { kind: 'User', name: 'system:serviceaccount:a:bot' },
    ]);
    const rbac = new RbacAuthorizer(log);
    const bot = { name: 'system:serviceaccount:a:bot', groups: [] };
    const robot = { name: 'system:serviceaccount:b:robot', groups: [] };
    assert.deepEqual(rbac.authorize(bot, request('get', 'configmaps', { namespace: 'a' })), {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "local/a" of ClusterRole "view" to ServiceAccount "bot/a"',
    });
    assert.equal(rbac.authorize(bot, request('get', 'configmaps', { namespace: 'b' })).allowed, false);
    assert.equal(rbac.authorize(bot, request('get', 'configmaps', { namespace: 'c' })).allowed, true);
    assert.deepEqual(rbac.authorize(robot, request('get', 'configmaps', { namespace: 'z' })), {
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "remote" of ClusterRole "view" to ServiceAccount "robot/b"',
    });
    assert.equal(
      rbac.authorize({ name: 'system:serviceaccount:b:bot', groups: [] }, request('get', 'configmaps'))
        .allowed,
      false,
    );
  });

  it('treats * as every verb, every API group and every resource, and "" as the core group only', () => {
    const log = new RevisionLog();
    clusterRole(log, 'any-verb', [{ verbs: ['*'], apiGroups: [''], resources: ['configmaps'] }]);
    clusterRole(log, 'any-group', [{ verbs: ['get'], apiGroups: ['*'], resources: ['widgets'] }]);
    clusterRole(log, 'any-resource', [{ verbs: ['list'], apiGroups: ['example.com'], resources: ['*'] }]);
    for (const name of ['any-verb', 'any-group', 'any-resource']) {
      clusterRoleBinding(log, name, { kind: 'ClusterRole', name }, [{ kind: 'User', name: 'alice' }]);
    }
    const rbac = new RbacAuthorizer(log);
    const allowed = (attributes: RequestAttributes) => rbac.authorize(alice, attributes).allowed;
    assert.equal(allowed(request('deletecollection', 'configmaps', { namespace: 'a' })), true);
    assert.equal(
      allowed(request('deletecollection', 'configmaps', { group: 'example.com', namespace: 'a' })),
      false,
    );
    assert.equal(allowed(request('get', 'widgets', { group: 'example.com', name: 'w' })), true);
    assert.equal(allowed(request('get', 'widgets', { group: 'other.io', name: 'w' })), true);
    assert.equal(allowed(request('list', 'gadgets', { group: 'example.com' })), true);
    assert.equal(allowed(request('list', 'gadgets', { group: 'example.com', subresource: 'status' })), true);
    assert.equal(allowed(request('list', 'secrets')), false);
  });

  it('grants a subresource only by resource/subresource or */subresource, never by the resource alone', () => {
    const log = new RevisionLog();
    clusterRole(log, 'widgets', [{ verbs: ['patch'], apiGroups: ['example.com'], resources: ['widgets'] }]);
    clusterRole(log, 'widget-status', [
      { verbs: ['patch'], apiGroups: ['example.com'], resources: ['widgets/status'] },
    ]);
    clusterRole(log, 'any-scale', [{ verbs: ['get'], apiGroups: ['example.com'], resources: ['*/scale'] }]);
    clusterRole(log, 'widget-star', [
      { verbs: ['delete'], apiGroups: ['example.com'], resources: ['widgets/*'] },
    ]);
    clusterRoleBinding(log, 'alice', { kind: 'ClusterRole', name: 'widgets' }, [
      { kind: 'User', name: 'alice' },
    ]);
    for (const name of ['widget-status', 'any-scale', 'widget-star']) {
      clusterRoleBinding(log, name, { kind: 'ClusterRole', name }, [{ kind: 'User', name: 'bob' }]);
    }
    const rbac = new RbacAuthorizer(log);
    const widgets = (verb: string, subresource?: string) =>
      request(verb, 'widgets', { group: 'example.com', namespace: 'a', name: 'w', subresource });
    assert.equal(rbac.authorize(alice, widgets('patch')).allowed, true);
    assert.equal(rbac.authorize(alice, widgets('patch', 'status')).allowed, false);
    assert.equal(rbac.authorize(bob, widgets('patch', 'status')).allowed, true);
    assert.equal(rbac.authorize(bob, widgets('patch')).allowed, false);
    assert.equal(
      rbac.authorize(bob, request('get', 'gadgets', { group: 'example.com', subresource: 'scale' })).allowed,
      true,
    );
    assert.equal(rbac.authorize(bob, request('get', 'gadgets', { group: 'example.com' })).allowed, false);
    // As in Kubernetes, `widgets/*` names a subresource literally called `*`.
    assert.equal(rbac.authorize(bob, widgets('delete', 'status')).allowed, false);
  });

  it('lets a rule with resourceNames match only requests naming one of them', () => {
    const log = new RevisionLog();
    role(log, 'a', 'one-map', [
      {
        verbs: ['get', 'list', 'watch', 'create', 'update'],
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['settings'],
      },
    ]);
    roleBinding(log, 'a', 'one-map', { kind: 'Role', name: 'one-map' }, [{ kind: 'User', name: 'alice' }]);
    const rbac = new RbacAuthorizer(log);
    const allowed = (verb: string, name?: string) =>
      rbac.authorize(alice, request(verb, 'configmaps', { namespace: 'a', name })).allowed;
    assert.equal(allowed('get', 'settings'), true);
    assert.equal(allowed('update', 'settings'), true);
    assert.equal(allowed('get', 'other'), false);
    assert.equal(allowed('list'), false);
    assert.equal(allowed('watch'), false);
    assert.equal(allowed('create'), false);
  });

  it('decides per name once a rule the identity holds names resources, and for all names alike before', () => {
    const log = new RevisionLog();
    clusterRole(log, 'view', readConfigMaps);
    clusterRoleBinding(log, 'view', { kind: 'ClusterRole', name: 'view' }, [{ kind: 'User', name: 'alice' }]);
    const rbac = new RbacAuthorizer(log);
    const decide = (verb: string, name: string) =>
      rbac.authorize(alice, request(verb, 'configmaps', { namespace: 'a', name }));
    assert.equal(decide('update', 'settings').allowed, false);
    assert.equal(decide('get', 'settings').allowed, true);
    assert.equal(decide('get', 'other').allowed, true);
    role(log, 'a', 'one-map', [
      { verbs: ['update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
    ]);
    roleBinding(log, 'a', 'one-map', { kind: 'Role', name: 'one-map' }, [{ kind: 'User', name: 'alice' }]);
    assert.equal(decide('update', 'settings').allowed, true);
    assert.equal(
      decide('update', 'other').allowed,
      false,
      'the decision for "settings" is not the one for "other"',
    );
    assert.equal(decide('update', 'settings').allowed, true);
    assert.equal(decide('get', 'other').allowed, true);
  });

  it('gives every request one binding allows the same frozen decision, and every refusal without a reason one too', () => {
    const log = new RevisionLog();
    clusterRole(log, 'view', readConfigMaps);
    clusterRoleBinding(log, 'view', { kind: 'ClusterRole', name: 'view' }, [{ kind: 'User', name: 'alice' }]);
    const rbac = new RbacAuthorizer(log);
    const get = rbac.authorize(alice, request('get', 'configmaps', { namespace: 'a', name: 'x' }));
    const list = rbac.authorize(alice, request('list', 'configmaps', { namespace: 'b' }));
    const clusterList = rbac.authorize(alice, request('list', 'configmaps'));
    assert.deepEqual(get, {
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "view" of ClusterRole "view" to User "alice"',
    });
    assert.equal(list, get, 'another verb in another namespace, allowed by the same binding');
    assert.equal(clusterList, get);
    assert.ok(Object.isFrozen(get));
    const refused = rbac.authorize(alice, request('delete', 'configmaps', { namespace: 'a', name: 'x' }));
    assert.deepEqual(refused, { allowed: false, reason: '' });
    assert.equal(rbac.authorize(bob, request('get', 'secrets', { namespace: 'c' })), refused);
    assert.ok(Object.isFrozen(refused));
  });

  it('remembers one decision for every namespace without RBAC objects of its own, and apart for one that has some', () => {
    const log = new RevisionLog();
    clusterRole(log, 'view', readConfigMaps);
    clusterRoleBinding(log, 'view', { kind: 'ClusterRole', name: 'view' }, [{ kind: 'User', name: 'alice' }]);
    role(log, 'ops', 'edit', [{ verbs: ['update'], apiGroups: [''], resources: ['configmaps'] }]);
    roleBinding(log, 'ops', 'edit', { kind: 'Role', name: 'edit' }, [{ kind: 'User', name: 'alice' }]);
    const rbac = new RbacAuthorizer(log);
    const inNamespace = (verb: string, namespace: string) =>
      rbac.authorize(alice, request(verb, 'configmaps', { namespace, name: 'x' }));
    for (let i = 0; i < 100; i++) {
      assert.equal(inNamespace('get', `tenant-${i}`).allowed, true);
      assert.equal(inNamespace('update', `tenant-${i}`).allowed, false);
    }
    assert.equal(rbac.authorize(alice, request('list', 'configmaps')).allowed, true);
    assert.equal(
      rbac.remembered,
      4,
      "alice at the cluster scope, and its three decisions: 100 namespaces' worth",
    );
    assert.equal(inNamespace('update', 'ops').allowed, true, "ops' own RoleBinding counts there");
    assert.equal(inNamespace('update', 'tenant-1').allowed, false, 'and nowhere else');
    assert.equal(rbac.remembered, 6, 'alice in ops and its decision, apart');
    // A namespace that gains a RoleBinding is decided by it from then on.
    roleBinding(log, 'tenant-7', 'edit', { kind: 'ClusterRole', name: 'edit-all' }, [
      { kind: 'User', name: 'alice' },
    ]);
    clusterRole(log, 'edit-all', [{ verbs: ['update'], apiGroups: [''], resources: ['configmaps'] }]);
    assert.equal(inNamespace('update', 'tenant-7').allowed, true);
    assert.equal(inNamespace('update', 'tenant-8').allowed, false);
  });

  it('decides for an identity by its groups as well as its name', () => {
    const log = new RevisionLog();
    clusterRole(log, 'view', readConfigMaps);
    roleBinding(log, 'a', 'ops', { kind: 'ClusterRole', name: 'view' }, [{ kind: 'Group', name: 'ops' }]);
    const rbac = new RbacAuthorizer(log);
    const get = request('get', 'configmaps', { namespace: 'a', name: 'x' });
    assert.equal(rbac.authorize({ name: 'carol', groups: ['ops'] }, get).allowed, true);
    assert.equal(rbac.authorize({ name: 'carol', groups: [] }, get).allowed, false);
    assert.equal(rbac.authorize({ name: 'carol', groups: ['ops'] }, get).allowed, true);
  });

  it('matches nonResourceURLs exactly or by a prefix ending in *, and only through ClusterRoleBindings', () => {
    const log = new RevisionLog();
    clusterRole(log, 'probes', [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz/*', '/api*'] }]);
    clusterRole(log, 'metrics', [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }]);
    clusterRoleBinding(log, 'probes', { kind: 'ClusterRole', name: 'probes' }, [
      { kind: 'User', name: 'alice' },
    ]);
    roleBinding(log, 'a', 'metrics', { kind: 'ClusterRole', name: 'metrics' }, [
      { kind: 'User', name: 'alice' },
    ]);
    const rbac = new RbacAuthorizer(log);
    const allowed = (verb: string, path: string) => rbac.authorize(alice, nonResource(verb, path)).allowed;
    assert.deepEqual(rbac.authorize(alice, nonResource('get', '/healthz')), {
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "probes" of ClusterRole "probes" to User "alice"',
    });
    assert.equal(allowed('get', '/healthz/ping'), false);
    assert.equal(allowed('get', '/readyz/etcd'), true);
    assert.equal(allowed('get', '/readyz'), false);
    assert.equal(allowed('get', '/apis/example.com/v1'), true);
    assert.equal(allowed('post', '/healthz'), false);
    assert.equal(allowed('get', '/metrics'), false);
    assert.equal(
      rbac.authorize(alice, { ...nonResource('get', '/metrics'), namespace: 'a' }).allowed,
      false,
      'a non-resource request is never decided by a RoleBinding',
    );
  });

  it('reads the roles and bindings stored at each call, so changing or removing one revokes what it granted', () => {
    const log = new RevisionLog();
    const rbac = new RbacAuthorizer(log);
    const get = request('get', 'configmaps', { namespace: 'a', name: 'x' });
    assert.equal(rbac.authorize(alice, get).allowed, false);
    clusterRole(log, 'view', readConfigMaps);
    roleBinding(log, 'a', 'read', { kind: 'ClusterRole', name: 'view' }, [{ kind: 'User', name: 'alice' }]);
    assert.equal(rbac.authorize(alice, get).allowed, true);
    log.put('v1/configmaps', 'a/unrelated', { metadata: { name: 'unrelated', namespace: 'a' } });
    assert.equal(rbac.authorize(alice, get).allowed, true, 'a write elsewhere leaves the grant');
    clusterRole(log, 'view', []);
    assert.equal(rbac.authorize(alice, get).allowed, false, 'the role lost the rule');
    clusterRole(log, 'view', readConfigMaps);
    log.remove(`${RBAC}/rolebindings`, 'a/read');
    assert.equal(rbac.authorize(alice, get).allowed, false);
  });

  it("sees each scope as stored after writes to other scopes: a namespace's Role, another namespace, a ClusterRole its binding names", () => {
    const log = new RevisionLog();
    const rbac = new RbacAuthorizer(log);
    const inA = request('get', 'configmaps', { namespace: 'a', name: 'x' });
    const inB = request('get', 'configmaps', { namespace: 'b', name: 'x' });
    const inNowhere = request('get', 'configmaps', { namespace: 'made-up', name: 'x' });
    clusterRole(log, 'view', readConfigMaps);
    roleBinding(log, 'a', 'read', { kind: 'ClusterRole', name: 'view' }, [{ kind: 'User', name: 'alice' }]);
    assert.equal(rbac.authorize(alice, inA).allowed, true);
    assert.equal(rbac.authorize(alice, inB).allowed, false);
    assert.equal(rbac.authorize(alice, inNowhere).allowed, false);
    // A namespace that had no RBAC objects when the others were indexed gains some.
    role(log, 'b', 'reader', readConfigMaps);
    roleBinding(log, 'b', 'read', { kind: 'Role', name: 'reader' }, [{ kind: 'User', name: 'bob' }]);
    assert.equal(rbac.authorize(bob, inB).allowed, true);
    assert.equal(rbac.authorize(bob, inA).allowed, false, "b's binding grants nothing in a");
    // A Role's rules change under an index already built.
    role(log, 'b', 'reader', []);
    assert.equal(rbac.authorize(bob, inB).allowed, false);
    // A ClusterRole that a RoleBinding names changes: the namespace's index sees it.
    clusterRole(log, 'view', []);
    assert.equal(rbac.authorize(alice, inA).allowed, false);
    // A ClusterRoleBinding grants in every namespace, even one with no RBAC objects.
    clusterRole(log, 'view', readConfigMaps);
    clusterRoleBinding(log, 'everywhere', { kind: 'ClusterRole', name: 'view' }, [
      { kind: 'User', name: 'bob' },
    ]);
    assert.equal(rbac.authorize(bob, inNowhere).allowed, true);
    assert.equal(rbac.authorize(bob, inA).allowed, true);
  });

  it('names the roles that bindings naming the identity refer to but that do not exist, as Kubernetes does', () => {
    const log = new RevisionLog();
    clusterRoleBinding(log, 'gone', { kind: 'ClusterRole', name: 'ghost' }, [
      { kind: 'User', name: 'alice' },
    ]);
    roleBinding(log, 'a', 'gone', { kind: 'Role', name: 'phantom' }, [{ kind: 'User', name: 'alice' }]);
    roleBinding(log, 'a', 'odd', { kind: 'Thing', name: 'x' }, [{ kind: 'User', name: 'alice' }]);
    const rbac = new RbacAuthorizer(log);
    assert.deepEqual(rbac.authorize(alice, request('list', 'configmaps')), {
      allowed: false,
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found',
    });
    assert.deepEqual(rbac.authorize(alice, request('list', 'configmaps', { namespace: 'a' })), {
      allowed: false,
      reason:
        'RBAC: [clusterrole.rbac.authorization.k8s.io "ghost" not found, role.rbac.authorization.k8s.io "phantom" not found, unsupported role reference kind: "Thing"]',
    });
    assert.deepEqual(rbac.authorize(bob, request('list', 'configmaps', { namespace: 'a' })), {
      allowed: false,
      reason: '',
    });
  });
});

describe('forbidden error', () => {
  const u = { name: 'u', groups: [] };

  it('words a namespaced refusal with the qualified resource and name as Kubernetes does', () => {
    const error = forbiddenError(u, request('get', 'configmaps', { namespace: 'default', name: 'x' }));
    assert.deepEqual(JSON.parse(JSON.stringify(error.toStatus())), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'configmaps "x" is forbidden: User "u" cannot get resource "configmaps" in API group "" in the namespace "default"',
      reason: 'Forbidden',
      details: { name: 'x', group: '', kind: 'configmaps' },
      code: 403,
    });
    assert.equal(
      forbiddenError(u, request('list', 'configmaps', { namespace: 'default' })).message,
      'configmaps is forbidden: User "u" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
  });

  it('words a cluster-scoped refusal with "at the cluster scope"', () => {
    assert.equal(
      forbiddenError(u, request('list', 'widgets', { group: 'example.com' })).message,
      'widgets.example.com is forbidden: User "u" cannot list resource "widgets" in API group "example.com" at the cluster scope',
    );
  });

  it('names a subresource after its resource in the refusal but not in the qualified resource', () => {
    const error = forbiddenError(
      u,
      request('patch', 'widgets', {
        group: 'example.com',
        subresource: 'status',
        namespace: 'ns1',
        name: 'w1',
      }),
    );
    assert.equal(
      error.message,
      'widgets.example.com "w1" is forbidden: User "u" cannot patch resource "widgets/status" in API group "example.com" in the namespace "ns1"',
    );
    assert.deepEqual(error.details, { name: 'w1', group: 'example.com', kind: 'widgets', causes: undefined });
  });

  it('words a non-resource refusal with the path and no resource', () => {
    const error = forbiddenError(u, nonResource('get', '/healthz'));
    assert.equal(error.code, 403);
    assert.equal(error.reason, 'Forbidden');
    assert.equal(error.message, 'forbidden: User "u" cannot get path "/healthz"');
  });

  it('appends the authorizer reason after the refusal', () => {
    assert.equal(
      forbiddenError(
        u,
        request('list', 'configmaps', { namespace: 'a' }),
        'RBAC: role.rbac.authorization.k8s.io "phantom" not found',
      ).message,
      'configmaps is forbidden: User "u" cannot list resource "configmaps" in API group "" in the namespace "a": RBAC: role.rbac.authorization.k8s.io "phantom" not found',
    );
  });
});
