/**
 * Access control through the real clients: an identity with a narrow Role may do exactly what
 * its bindings allow in the plane it addresses, kubectl `auth can-i` answers from RBAC, and
 * refused writes read as Kubernetes words them.
 */
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/apiserver.ts';
import { call } from '../support/child-server.ts';
import { Kubectl } from '../support/kubectl.ts';

async function failure(promise: Promise<unknown>): Promise<{ code: number; body: any }> {
  try {
    await promise;
  } catch (err) {
    const e = err as k8s.ApiException<string>;
    return { code: e.code, body: typeof e.body === 'string' ? JSON.parse(e.body) : e.body };
  }
  throw new Error('the request was allowed');
}

describe('access control', () => {
  let t: TestServer;
  let alice: { kubectl: Kubectl; kc: (plane: string) => k8s.KubeConfig };

  before(async () => {
    t = await startTestServer(['hub', 'cell']);
    const admin = t.kubeConfig('hub').makeApiClient(k8s.CoreV1Api);
    await admin.createNamespace({ body: { metadata: { name: 'team' } } });
    const rbac = t.kubeConfig('hub').makeApiClient(k8s.RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: 'team',
      body: {
        metadata: { name: 'configmap-writer' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: 'team',
      body: {
        metadata: { name: 'alice-writes' },
        subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
        roleRef: { kind: 'Role', name: 'configmap-writer', apiGroup: 'rbac.authorization.k8s.io' },
      },
    });
    const path = join(t.dir, 'alice.kubeconfig');
    await writeFile(path, t.server.kubeconfig(t.server.createIdentity('alice')), { mode: 0o600 });
    alice = {
      kubectl: new Kubectl(path, join(t.dir, 'alice-cache'), t.dir),
      kc: (plane: string) => {
        const kc = new k8s.KubeConfig();
        kc.loadFromFile(path);
        kc.setCurrentContext(plane);
        return kc;
      },
    };
  });
  after(async () => t.stop());

  it('lets an identity do what its Role grants, in that namespace only', async () => {
    const core = alice.kc('hub').makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: 'team', body: { metadata: { name: 'mine' } } });
    const listed = await core.listNamespacedConfigMap({ namespace: 'team' });
    assert.deepEqual(
      listed.items.map((cm) => cm.metadata?.name),
      ['mine'],
    );
    const refused = await failure(
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'x' } } }),
    );
    assert.equal(refused.code, 403);
    assert.equal(refused.body.reason, 'Forbidden');
    assert.equal(
      refused.body.message,
      'configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default"',
    );
    const secrets = await failure(core.readNamespacedSecret({ name: 's', namespace: 'team' }));
    assert.equal(secrets.code, 403);
    assert.match(
      secrets.body.message,
      /secrets "s" is forbidden: User "alice" cannot get resource "secrets"/,
    );
  });

  it('evaluates RBAC per plane: the same identity has no grant in another plane', async () => {
    const core = alice.kc('cell').makeApiClient(k8s.CoreV1Api);
    const refused = await failure(core.listNamespacedConfigMap({ namespace: 'default' }));
    assert.equal(refused.code, 403);
  });

  it('answers kubectl auth can-i from the bindings', async () => {
    assert.equal(
      (
        await alice.kubectl.run(['--context', 'hub', 'auth', 'can-i', 'create', 'configmaps', '-n', 'team'])
      ).stdout.trim(),
      'yes',
    );
    const no = await alice.kubectl.run([
      '--context',
      'hub',
      'auth',
      'can-i',
      'delete',
      'configmaps',
      '-n',
      'team',
    ]);
    assert.equal(no.stdout.trim(), 'no');
    assert.equal(no.code, 1);
    assert.equal(
      (await t.kubectl.run(['--context', 'hub', 'auth', 'can-i', 'delete', 'namespaces'])).stdout.trim(),
      'yes',
    );
  });

  it('refuses a kubectl write with the Forbidden message, and stores nothing', async () => {
    const result = await alice.kubectl.run([
      '--context',
      'hub',
      'create',
      'configmap',
      'sneaky',
      '-n',
      'default',
    ]);
    assert.notEqual(result.code, 0);
    assert.match(
      result.stderr,
      /configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default"/,
    );
    const admin = t.kubeConfig('hub').makeApiClient(k8s.CoreV1Api);
    const names = (await admin.listNamespacedConfigMap({ namespace: 'default' })).items.map(
      (cm) => cm.metadata?.name,
    );
    assert.ok(!names.includes('sneaky'));
    const del = await alice.kubectl.run(['--context', 'hub', 'delete', 'configmap', 'mine', '-n', 'team']);
    assert.match(del.stderr, /cannot delete resource "configmaps" in API group "" in the namespace "team"/);
  });

  it('answers 401 to a request without a known token', async () => {
    const kc = t.kubeConfig('hub');
    const user = kc.getCurrentUser()!;
    (user as { token?: string }).token = 'not-a-token';
    assert.equal((await failure(kc.makeApiClient(k8s.CoreV1Api).listNamespace())).code, 401);
    const target = {
      base: t.server.url('hub'),
      token: 'not-a-token',
      ca: t.server.certificates.caCertPem,
      agent: new Agent(),
    };
    const raw = await call(target, 'GET', '/api/v1/namespaces');
    assert.equal(raw.status, 401);
    assert.deepEqual(JSON.parse(raw.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
    const kubectl = await alice.kubectl.run([
      '--context',
      'hub',
      '--token',
      'not-a-token',
      'get',
      'namespaces',
    ]);
    assert.match(kubectl.stderr, /You must be logged in to the server/);
  });
});
