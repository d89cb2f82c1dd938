/**
 * Write limits through the real HTTP API (issue 13, findings 1 and 2): no request by the least
 * privileged identity — nor a series of them — can exhaust the server's memory or a plane's
 * disk. Each refusal is the Kubernetes code and reason, stores nothing, and the server keeps
 * answering `/readyz` with its memory bounded; a plane whose stored history outgrew its window
 * starts anyway, compacting it.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/apiserver.ts';
import { call, startChildServer, type ChildServer, type PlaneTarget } from '../support/child-server.ts';
import { identityWithRole, readyzProbe, targetOf } from '../support/hostile.ts';

const MiB = 1024 * 1024;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const MINE = `${CONFIGMAPS}/mine`;

v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** This process's resident set (the server runs in it) after a full collection, in MiB. */
function rssMiB(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().rss / MiB;
}

function snapshot(t: TestServer): string {
  const plane = t.server.plane('hub')!;
  return `${plane.log.revision}|${JSON.stringify(plane.log.list('/configmaps'))}`;
}

describe('write limits', () => {
  let t: TestServer;
  let consumer: PlaneTarget;

  before(async () => {
    t = await startTestServer(['hub']);
    const admin = targetOf(t.server, 'hub', t.server.adminToken);
    assert.equal(
      (await call(admin, 'POST', CONFIGMAPS, { metadata: { name: 'mine' }, data: {} })).status,
      201,
    );
    admin.agent.destroy();
    // As the consumer: patch rights on one object, nothing else.
    consumer = await identityWithRole(t.server, 'hub', 'default', 'consumer-demo', [
      {
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['mine'],
        verbs: ['get', 'patch', 'update'],
      },
    ]);
  });
  after(async () => {
    consumer.agent.destroy();
    await t.stop();
  });

  for (const dryRun of [true, false]) {
    it(`refuses a JSON patch whose copies double the object 413${dryRun ? ' under dryRun=All' : ''}, with memory bounded and /readyz answering`, async () => {
      const before = snapshot(t);
      const rss = rssMiB();
      const probe = readyzProbe(consumer);
      const patch = [
        { op: 'add', path: '/x', value: Array.from({ length: 100 }, (_, i) => i) },
        ...Array.from({ length: 22 }, () => ({ op: 'copy', from: '/x', path: '/x/-' })),
      ];
      assert.ok(JSON.stringify(patch).length < 2000, 'the attack is a small request');
      const res = await call(
        consumer,
        'PATCH',
        `${MINE}${dryRun ? '?dryRun=All' : ''}`,
        patch,
        'application/json-patch+json',
      );
      const { answered } = await probe.stop();
      assert.equal(res.status, 413, res.body);
      const status = JSON.parse(res.body);
      assert.equal(status.reason, 'RequestEntityTooLarge');
      assert.match(status.message, /Unable to complete the copy.*limit of 1572864 bytes/);
      assert.ok(answered >= 1, '/readyz answered during the attack');
      const grown = rssMiB() - rss;
      assert.ok(grown < 100, `RSS grew by ${Math.round(grown)} MiB`);
      assert.equal(snapshot(t), before, 'nothing was written');
    });
  }

  it('refuses an object over 1.5 MiB 413 RequestEntityTooLarge, whatever patch type builds it', async () => {
    const big = 'a'.repeat(1.6 * MiB);
    const cases: [string, unknown][] = [
      ['application/merge-patch+json', { data: { big } }],
      ['application/strategic-merge-patch+json', { data: { big } }],
      ['application/json-patch+json', [{ op: 'add', path: '/data/big', value: big }]],
    ];
    for (const [contentType, body] of cases) {
      const before = snapshot(t);
      const res = await call(consumer, 'PATCH', MINE, body, contentType);
      assert.equal(res.status, 413, `${contentType}: ${res.body}`);
      assert.equal(JSON.parse(res.body).reason, 'RequestEntityTooLarge');
      assert.match(
        JSON.parse(res.body).message,
        /ConfigMap "mine" would be \d+ bytes encoded; the limit is 1572864 bytes/,
      );
      assert.equal(snapshot(t), before);
    }
  });

  it('refuses annotations over 256 KiB in total 422 Invalid naming metadata.annotations', async () => {
    const before = snapshot(t);
    const res = await call(
      consumer,
      'PATCH',
      MINE,
      { metadata: { annotations: { a: 'x'.repeat(200 * 1024), b: 'y'.repeat(100 * 1024) } } },
      'application/merge-patch+json',
    );
    assert.equal(res.status, 422, res.body);
    const status = JSON.parse(res.body);
    assert.equal(status.reason, 'Invalid');
    assert.match(
      status.message,
      /ConfigMap "mine" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes/,
    );
    assert.equal(snapshot(t), before);
  });

  it('refuses a 2.9 MB annotation patch, repeated, without growing the server', async () => {
    const before = snapshot(t);
    const rss = rssMiB();
    const probe = readyzProbe(consumer);
    for (let i = 0; i < 20; i++) {
      const res = await call(
        consumer,
        'PATCH',
        MINE,
        { metadata: { annotations: { [`k${i}`]: 'z'.repeat(2.9 * 1e6) } } },
        'application/merge-patch+json',
      );
      assert.equal(res.status, 413, res.body);
    }
    const { answered } = await probe.stop();
    assert.ok(answered >= 1);
    const grown = rssMiB() - rss;
    assert.ok(grown < 100, `RSS grew by ${Math.round(grown)} MiB`);
    assert.equal(snapshot(t), before);
  });

  it('refuses a body nested 100,000 deep 400 BadRequest', async () => {
    const before = snapshot(t);
    const deep = `{"metadata":{"name":"deep"},"data":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const res = await call(consumer, 'PATCH', MINE, deep, 'application/merge-patch+json');
    assert.equal(res.status, 400, res.body);
    assert.equal(JSON.parse(res.body).reason, 'BadRequest');
    assert.match(JSON.parse(res.body).message, /exceeded max depth 1000/);
    assert.equal(snapshot(t), before);
  });
});

/** The resident set of process `pid` in MiB, from /proc. */
function processRssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

describe('the revision log window in bytes', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netpresence-window-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Writes ConfigMap `mine` `count` times, 1.4 MiB each time (creating it first when absent). */
  async function writeLarge(admin: PlaneTarget, count: number): Promise<void> {
    const body = (i: number) => ({
      metadata: { name: 'mine' },
      data: { big: `${i}`.padEnd(1.4 * MiB, 'q') },
    });
    const exists = (await call(admin, 'GET', MINE)).status === 200;
    for (let i = 0; i < count; i++) {
      const create = i === 0 && !exists;
      const res = create
        ? await call(admin, 'POST', CONFIGMAPS, body(i))
        : await call(admin, 'PUT', MINE, body(i));
      assert.equal(res.status, create ? 201 : 200, res.body);
    }
  }

  async function serve(dataDir: string, historyBytes: number): Promise<ChildServer> {
    const kubeconfig = join(dir, `kubeconfig-${historyBytes}`);
    return startChildServer(
      ['--plane', 'hub', '--data-dir', dataDir, '--history-bytes', String(historyBytes)],
      kubeconfig,
      120_000,
    );
  }

  async function stop(server: ChildServer, admin: PlaneTarget): Promise<void> {
    admin.agent.destroy();
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  }

  it('keeps the server and its database bounded under repeated large writes, and compacts on restart a stored history larger than the window', async () => {
    const dataDir = join(dir, 'data');
    const db = join(dataDir, 'planes', 'hub.db');
    // First a window of 1 GiB (as an older version kept 10,000 events whatever their size).
    let server = await serve(dataDir, 1024 * MiB);
    let admin = await server.target('hub');
    let revision: string;
    try {
      await writeLarge(admin, 30);
      revision = JSON.parse((await call(admin, 'GET', MINE)).body).metadata.resourceVersion;
    } finally {
      await stop(server, admin); // also when a write fails: no server outlives the test
    }
    const grown = statSync(db).size + (statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    assert.ok(grown > 60 * MiB, `the database grew to ${Math.round(grown / MiB)} MiB`);

    // Restarted with an 8 MiB window: it starts, and keeps every object with its revision.
    server = await serve(dataDir, 8 * MiB);
    admin = await server.target('hub');
    try {
      const read = await call(admin, 'GET', MINE);
      assert.equal(read.status, 200);
      assert.equal(JSON.parse(read.body).metadata.resourceVersion, revision);
      const size = statSync(db).size + (statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0);
      assert.ok(size < 40 * MiB, `after compaction the database holds ${Math.round(size / MiB)} MiB`);
      // Thirty more large writes keep the window, and so memory and the file, within bounds. The
      // baseline is taken after ten of them: a fresh process's heap grows to its working size on
      // the first large writes whatever the window, and only growth beyond that is a leak.
      await writeLarge(admin, 10);
      const rss = processRssMiB(server.child.pid!);
      const probe = readyzProbe(admin);
      await writeLarge(admin, 30);
      assert.ok((await probe.stop()).answered >= 1);
      const grownBy = processRssMiB(server.child.pid!) - rss;
      assert.ok(grownBy < 100, `RSS grew by ${Math.round(grownBy)} MiB`);
      const after = statSync(db).size + (statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0);
      assert.ok(after < 60 * MiB, `the database holds ${Math.round(after / MiB)} MiB`);
    } finally {
      await stop(server, admin);
    }
  });
});
