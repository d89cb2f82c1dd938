/**
 * The smaller hardening findings of issue 13 (finding 6), through the real HTTP API: SQLite files
 * are 0600, a non-loopback `--listen` host is in the serving certificate, unauthenticated health
 * probes under a plane or project path reveal nothing, `Impersonate-*` headers are honoured with
 * the `impersonate` verb or refused 403, and the bare `apiserver` logs to stderr.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiServer } from '../../src/apiserver/server.ts';
import { startTestServer, type TestServer } from '../support/apiserver.ts';
import { call, startChildServer } from '../support/child-server.ts';
import { identityWithRole, targetOf } from '../support/hostile.ts';

/** A GET with the given headers (and no token unless one is among them). */
function get(server: ApiServer, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      `https://127.0.0.1:${server.port}${path}`,
      { ca: server.certificates.caCertPem, headers },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('hardening', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['hub']);
    t.server.addProjectPlane('alpha');
  });
  after(async () => t.stop());

  it('answers 401 to unauthenticated health probes under any plane or project path, existing or not', async () => {
    for (const path of [
      '/planes/hub/healthz',
      '/planes/nope/healthz',
      '/apis/resourcemanager.miloapis.com/v1alpha1/projects/alpha/control-plane/readyz',
      '/apis/resourcemanager.miloapis.com/v1alpha1/projects/nope/control-plane/readyz',
      '/planes/nope/api/v1/namespaces',
    ]) {
      const res = await get(t.server, path);
      assert.equal(res.status, 401, `${path}: ${res.body}`);
      assert.equal(JSON.parse(res.body).reason, 'Unauthorized');
    }
    assert.equal((await get(t.server, '/healthz')).status, 200, 'the root probe stays open');
    const auth = { Authorization: `Bearer ${t.server.adminToken}` };
    assert.equal((await get(t.server, '/planes/hub/healthz', auth)).status, 200);
    assert.equal((await get(t.server, '/planes/nope/healthz', auth)).status, 404);
  });

  it('refuses Impersonate-User 403 without the impersonate verb, and acts as the user with it', async () => {
    const plane = t.server.plane('hub')!;
    const revision = plane.log.revision;
    const eve = await identityWithRole(t.server, 'hub', 'default', 'eve', [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
    ]);
    const { token } = eve;
    eve.agent.destroy();
    const headers = { Authorization: `Bearer ${token}`, 'Impersonate-User': 'netpresence-admin' };
    const refused = await get(t.server, '/planes/hub/api/v1/namespaces/default/secrets', headers);
    assert.equal(refused.status, 403, refused.body);
    assert.equal(
      JSON.parse(refused.body).message,
      'users "netpresence-admin" is forbidden: User "eve" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    // Groups without a user are refused too, never ignored.
    const groupsOnly = await get(t.server, '/planes/hub/api/v1/namespaces/default/configmaps', {
      Authorization: `Bearer ${token}`,
      'Impersonate-Group': 'system:masters',
    });
    assert.equal(groupsOnly.status, 400, groupsOnly.body);
    const writes = plane.log.revision;
    assert.ok(writes > revision);

    // The admin impersonating eve gets what eve gets: kubectl --as answers for eve.
    const admin = { Authorization: `Bearer ${t.server.adminToken}` };
    const asEve = await get(t.server, '/planes/hub/api/v1/namespaces/default/secrets', {
      ...admin,
      'Impersonate-User': 'eve',
    });
    assert.equal(asEve.status, 403, asEve.body);
    assert.match(JSON.parse(asEve.body).message, /User "eve" cannot list resource "secrets"/);
    const asEveReads = await get(t.server, '/planes/hub/api/v1/namespaces/default/configmaps/none', {
      ...admin,
      'Impersonate-User': 'eve',
    });
    assert.equal(asEveReads.status, 404, asEveReads.body);
    assert.equal(plane.log.revision, writes, 'nothing was written');
  });
});

describe('the bare apiserver', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netpresence-bare-'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('creates its SQLite files 0600 and names a non-loopback listen host in its certificate', async () => {
    const dataDir = join(dir, 'data');
    const server = await ApiServer.start({ host: '127.0.0.2', dataDir });
    try {
      server.addPlane('hub');
      const admin = targetOf(server, 'hub', server.adminToken);
      assert.ok(admin.base.startsWith('https://127.0.0.2:'));
      // The TLS handshake verifies the certificate against the host the kubeconfig names.
      const res = await call(admin, 'POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name: 'x' },
      });
      assert.equal(res.status, 201, res.body);
      admin.agent.destroy();
      for (const file of ['hub.db', 'hub.db-wal']) {
        const mode = statSync(join(dataDir, 'planes', file)).mode & 0o777;
        assert.equal(mode, 0o600, `${file} is ${mode.toString(8)}`);
      }
    } finally {
      await server.stop();
    }
  });

  it('logs to stderr, keeping stdout for the line saying where it listens', async () => {
    const previous = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'debug';
    let stdout = '';
    const child = await startChildServer(['--plane', 'hub'], join(dir, 'kubeconfig'), 120_000).finally(() => {
      if (previous === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = previous;
    });
    child.child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    let stderr = '';
    child.child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const target = await child.target('hub');
    assert.equal((await call(target, 'GET', '/api/v1/namespaces')).status, 200);
    target.agent.destroy();
    child.child.kill('SIGTERM');
    await child.exited;
    assert.equal(stdout, '', 'nothing but the listening line on stdout');
    assert.match(stderr, /"msg":"request"/);
  });
});
