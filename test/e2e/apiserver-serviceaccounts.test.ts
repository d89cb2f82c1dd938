/**
 * ServiceAccounts as kubectl uses them: `kubectl create token` mints a token for
 * system:serviceaccount:NS:NAME, RBAC binds the ServiceAccount, `kubectl auth can-i --list` lists
 * what it may do, the token is refused once it expires or the ServiceAccount is deleted, and the
 * audit log records every request with who made it and how it ended.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, eventually, type TestServer } from '../support/apiserver.ts';
import { Kubectl } from '../support/kubectl.ts';

describe('ServiceAccounts, TokenRequest, SelfSubjectRulesReview and the audit log', () => {
  let t: TestServer;
  let nowMs = Date.parse('2026-12-03T10:00:00Z');
  let auditLog: string;

  /** kubectl as the holder of `token`, against `plane`. */
  async function as(token: string, name: string, plane = 'hub'): Promise<Kubectl> {
    const path = join(t.dir, `${name}.kubeconfig`);
    await writeFile(path, t.server.kubeconfig(token, [plane]), { mode: 0o600 });
    return new Kubectl(path, join(t.dir, `${name}-cache`), t.dir);
  }

  async function token(name: string, namespace: string, duration = '1h'): Promise<string> {
    return (
      await t.kubectl.ok([
        '--context',
        'hub',
        'create',
        'token',
        name,
        '-n',
        namespace,
        '--duration',
        duration,
      ])
    ).trim();
  }

  before(async () => {
    const dir = join(process.env.TMPDIR ?? '/tmp', `np-audit-${process.pid}-${Date.now()}`);
    auditLog = join(dir, 'audit.jsonl');
    t = await startTestServer(['hub', 'cell'], { plane: { now: () => new Date(nowMs) }, auditLog });
    const k = (args: string[]) => t.kubectl.ok(['--context', 'hub', ...args]);
    await k(['create', 'namespace', 'team']);
    await k(['create', 'serviceaccount', 'robot', '-n', 'team']);
    await k(['create', 'role', 'cm-reader', '-n', 'team', '--verb=get,list', '--resource=configmaps']);
    await k([
      'create',
      'rolebinding',
      'robot-reads',
      '-n',
      'team',
      '--role=cm-reader',
      '--serviceaccount=team:robot',
    ]);
    await k(['create', 'clusterrole', 'ns-reader', '--verb=get', '--resource=namespaces']);
    await k([
      'create',
      'clusterrolebinding',
      'robot-ns',
      '--clusterrole=ns-reader',
      '--serviceaccount=team:robot',
    ]);
  });

  after(() => t.stop());

  it('mints a token for the ServiceAccount, with its groups, that RBAC binds', async () => {
    const robot = await as(await token('robot', 'team'), 'robot');
    assert.match(await robot.ok(['get', 'configmaps', '-n', 'team']), /^$|NAME/);
    const refused = await robot.run(['get', 'secrets', '-n', 'team']);
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      /secrets is forbidden: User "system:serviceaccount:team:robot" cannot list resource "secrets" in API group "" in the namespace "team"/,
    );
    assert.equal((await robot.run(['auth', 'can-i', 'get', 'namespaces'])).stdout.trim(), 'yes');
  });

  it('is accepted only by the plane whose ServiceAccount it was minted for', async () => {
    await t.kubectl.ok(['--context', 'cell', 'create', 'namespace', 'team']);
    await t.kubectl.ok(['--context', 'cell', 'create', 'serviceaccount', 'robot', '-n', 'team']);
    const hubToken = await token('robot', 'team');
    const elsewhere = await (await as(hubToken, 'robot-on-cell', 'cell')).run(['auth', 'can-i', '--list']);
    assert.notEqual(elsewhere.code, 0);
    assert.match(elsewhere.stderr, /Unauthorized|must be logged in/);
  });

  it('lists what the ServiceAccount may do with kubectl auth can-i --list', async () => {
    const robot = await as(await token('robot', 'team'), 'robot-list');
    const listed = await robot.ok(['auth', 'can-i', '--list', '-n', 'team']);
    assert.match(listed, /^configmaps\s+\[\]\s+\[\]\s+\[get list\]$/m);
    assert.match(listed, /^namespaces\s+\[\]\s+\[\]\s+\[get\]$/m);
    assert.match(listed, /selfsubjectrulesreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/);
    assert.doesNotMatch(listed, /^secrets/m);
    // In another namespace only the cluster-wide grant remains.
    const elsewhere = await robot.ok(['auth', 'can-i', '--list', '-n', 'default']);
    assert.doesNotMatch(elsewhere, /^configmaps/m);
    assert.match(elsewhere, /^namespaces/m);
  });

  it('refuses a duration under ten minutes, and a token for a ServiceAccount that does not exist', async () => {
    const short = await t.kubectl.run([
      '--context',
      'hub',
      'create',
      'token',
      'robot',
      '-n',
      'team',
      '--duration',
      '5m',
    ]);
    assert.notEqual(short.code, 0);
    assert.match(
      short.stderr,
      /spec\.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes/,
    );
    const missing = await t.kubectl.run(['--context', 'hub', 'create', 'token', 'ghost', '-n', 'team']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /serviceaccounts "ghost" not found/);
  });

  it('refuses the token once it has expired', async () => {
    const robot = await as(await token('robot', 'team', '20m'), 'robot-expiring');
    await robot.ok(['get', 'configmaps', '-n', 'team']);
    nowMs += 19 * 60_000;
    await robot.ok(['get', 'configmaps', '-n', 'team']);
    nowMs += 60_000;
    const refused = await robot.run(['get', 'configmaps', '-n', 'team']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Unauthorized|must be logged in/);
  });

  it('refuses the token once its ServiceAccount is deleted, even when one of that name comes back', async () => {
    await t.kubectl.ok(['--context', 'hub', 'create', 'serviceaccount', 'temp', '-n', 'team']);
    await t.kubectl.ok([
      '--context',
      'hub',
      'create',
      'rolebinding',
      'temp-reads',
      '-n',
      'team',
      '--role=cm-reader',
      '--serviceaccount=team:temp',
    ]);
    const temp = await as(await token('temp', 'team'), 'temp');
    await temp.ok(['get', 'configmaps', '-n', 'team']);
    await t.kubectl.ok(['--context', 'hub', 'delete', 'serviceaccount', 'temp', '-n', 'team']);
    await t.kubectl.ok(['--context', 'hub', 'create', 'serviceaccount', 'temp', '-n', 'team']);
    const refused = await temp.run(['get', 'configmaps', '-n', 'team']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Unauthorized|must be logged in/);
  });

  it('records every request in the audit log as an audit.k8s.io/v1 Event at level Metadata', async () => {
    const events = await eventually(
      async () => {
        const lines = (await readFile(auditLog, 'utf8'))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, any>);
        return lines.some((e) => e.responseStatus.code === 401) ? lines : undefined;
      },
      10_000,
      'the audit log to hold the refused request',
    );
    for (const event of events) {
      assert.equal(event.apiVersion, 'audit.k8s.io/v1');
      assert.equal(event.kind, 'Event');
      assert.equal(event.level, 'Metadata');
      assert.equal(event.stage, 'ResponseComplete');
      assert.equal(JSON.stringify(event).includes('Bearer'), false);
    }
    const forbidden = events.find(
      (e) => e.user.username === 'system:serviceaccount:team:robot' && e.objectRef?.resource === 'secrets',
    );
    assert.ok(forbidden, 'the refused secrets list is recorded');
    assert.deepEqual(forbidden.user.groups, [
      'system:serviceaccounts',
      'system:serviceaccounts:team',
      'system:authenticated',
    ]);
    assert.equal(forbidden.verb, 'list');
    assert.deepEqual(forbidden.objectRef, {
      resource: 'secrets',
      namespace: 'team',
      apiGroup: '',
      apiVersion: 'v1',
    });
    assert.equal(forbidden.responseStatus.code, 403);
    assert.equal(forbidden.annotations['netpresence.datumapis.com/plane'], 'hub');
    const minted = events.find((e) => e.objectRef?.subresource === 'token' && e.responseStatus.code === 201);
    assert.ok(minted, 'the TokenRequest is recorded');
    assert.equal(minted.verb, 'create');
    assert.equal(minted.objectRef.name, 'robot');
    assert.deepEqual(events.find((e) => e.responseStatus.code === 401)!.user, {});
  });
});
