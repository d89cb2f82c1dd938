/**
 * A plane that cannot load what it stored never stops the server (issue 13): a real
 * `netpresence apiserver --data-dir` child process restarted on a data directory where one
 * plane's file is not a database, one holds a row that does not decode and one an object far
 * over the size limit starts anyway. Those planes serve what could be read, refuse writes 503
 * ServiceUnavailable naming the plane and the cause, fail their /readyz saying why, and an error
 * log names each file; the other planes work normally.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, startChildServer, type ChildServer, type PlaneTarget } from '../support/child-server.ts';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const PLANES = ['hub', 'cell-a', 'cell-b', 'cell-c'];

interface Status {
  kind: string;
  code: number;
  reason: string;
  message: string;
}

interface List {
  metadata: { resourceVersion: string };
  items: { metadata: { name: string }; data?: Record<string, string> }[];
}

const configMap = (name: string, value: string) => ({ metadata: { name }, data: { value } });

async function list(target: PlaneTarget): Promise<List> {
  const res = await call(target, 'GET', CONFIGMAPS);
  assert.equal(res.status, 200, res.body);
  return JSON.parse(res.body) as List;
}

describe('a plane that cannot load what it stored', () => {
  let dir: string;
  let server: ChildServer | undefined;
  const targets = new Map<string, PlaneTarget>();
  const args = () => ['--data-dir', join(dir, 'data'), ...PLANES.flatMap((p) => ['--plane', p])];
  const kubeconfig = () => join(dir, 'kubeconfig');
  const file = (plane: string) => join(dir, 'data', 'planes', `${plane}.db`);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netpresence-degraded-'));
    const first = await startChildServer(args(), kubeconfig());
    for (const plane of ['root', ...PLANES]) {
      const target = await first.target(plane);
      for (const name of ['kept', 'broken', 'huge']) {
        const res = await call(target, 'POST', CONFIGMAPS, configMap(name, `${plane}-${name}`));
        assert.equal(res.status, 201, res.body);
      }
      target.agent.destroy();
    }
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);

    // hub: not a database at all; cell-a: a row that does not decode; cell-b: an object of 8 MiB
    // (the API never stores one: 1.5 MiB is its limit). root and cell-c stay as they were.
    await writeFile(file('hub'), Buffer.alloc(64 * 1024, 'not a database '));
    await rm(`${file('hub')}-wal`, { force: true });
    const cellA = new Database(file('cell-a'));
    cellA.prepare("UPDATE objects SET object = '{\"metadata\": ' WHERE key = 'default/broken'").run();
    cellA.close();
    const cellB = new Database(file('cell-b'));
    const huge = JSON.stringify({
      ...configMap('huge', 'x'.repeat(8 * 1024 * 1024)),
      apiVersion: 'v1',
      kind: 'ConfigMap',
    });
    cellB.prepare("UPDATE objects SET object = ? WHERE key = 'default/huge'").run(huge);
    cellB.close();

    server = await startChildServer(args(), kubeconfig());
    for (const plane of ['root', ...PLANES]) targets.set(plane, await server.target(plane));
  });

  after(async () => {
    for (const target of targets.values()) target.agent.destroy();
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('starts anyway, and serves the planes whose data loads as before, writes included', async () => {
    for (const plane of ['root', 'cell-c']) {
      const target = targets.get(plane)!;
      const ready = await call(target, 'GET', '/readyz');
      assert.equal(ready.status, 200, ready.body);
      assert.deepEqual((await list(target)).items.map((item) => item.data?.value).sort(), [
        `${plane}-broken`,
        `${plane}-huge`,
        `${plane}-kept`,
      ]);
      const res = await call(target, 'POST', CONFIGMAPS, configMap('after-restart', plane));
      assert.equal(res.status, 201, res.body);
    }
  });

  it('serves what a damaged plane could read: every row that decodes, nothing of a file that is not a database', async () => {
    const names = async (plane: string) =>
      (await list(targets.get(plane)!)).items.map((i) => i.metadata.name).sort();
    assert.deepEqual(await names('cell-a'), ['huge', 'kept']);
    assert.deepEqual(await names('cell-b'), ['broken', 'kept']);
    assert.deepEqual(await names('hub'), []);
    const kept = await call(targets.get('cell-a')!, 'GET', `${CONFIGMAPS}/kept`);
    assert.equal(kept.status, 200, kept.body);
    assert.equal((JSON.parse(kept.body) as { data: { value: string } }).data.value, 'cell-a-kept');
    assert.equal((await call(targets.get('cell-b')!, 'GET', `${CONFIGMAPS}/huge`)).status, 404);
  });

  it('refuses every write to a damaged plane 503 ServiceUnavailable naming the plane and the cause, and changes nothing', async () => {
    const causes: Record<string, RegExp> = {
      hub: /file is not a database/,
      'cell-a': /the object \/configmaps default\/broken does not decode/,
      'cell-b': /the object \/configmaps default\/huge is \d+ bytes encoded, over the \d+ a plane loads/,
    };
    for (const [plane, cause] of Object.entries(causes)) {
      const target = targets.get(plane)!;
      const before = await list(target);
      const writes = [
        await call(target, 'POST', CONFIGMAPS, configMap('new', 'x')),
        await call(target, 'PUT', `${CONFIGMAPS}/kept`, configMap('kept', 'changed')),
        await call(
          target,
          'PATCH',
          `${CONFIGMAPS}/kept`,
          { data: { value: 'patched' } },
          'application/merge-patch+json',
        ),
        await call(target, 'DELETE', `${CONFIGMAPS}/kept`),
        await call(target, 'DELETE', CONFIGMAPS),
      ];
      for (const res of writes) {
        assert.equal(res.status, 503, `${plane}: ${res.body}`);
        const status = JSON.parse(res.body) as Status;
        assert.equal(status.kind, 'Status');
        assert.equal(status.reason, 'ServiceUnavailable');
        assert.match(status.message, new RegExp(`^plane ${plane} is read-only: `));
        assert.ok(status.message.includes(file(plane)), status.message);
        assert.match(status.message, cause);
      }
      const after = await list(target);
      assert.equal(
        after.metadata.resourceVersion,
        before.metadata.resourceVersion,
        `${plane}: revision unchanged`,
      );
      assert.deepEqual(after.items, before.items);
    }
  });

  it('fails the /readyz of a damaged plane saying why, keeps its /livez, and logs an error naming the file', async () => {
    for (const plane of ['hub', 'cell-a', 'cell-b']) {
      const target = targets.get(plane)!;
      const ready = await call(target, 'GET', '/readyz');
      assert.equal(ready.status, 500, ready.body);
      assert.match(ready.body, new RegExp(`^\\[-\\]storage failed: plane ${plane} is read-only: `));
      assert.ok(ready.body.includes(file(plane)), ready.body);
      assert.equal((await call(target, 'GET', '/livez')).status, 200);
      const logged = server!
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; plane?: string; file?: string; msg: string })
        .find((line) => line.plane === plane && line.level === 50);
      assert.ok(logged, `an error log for ${plane}: ${server!.stderr()}`);
      assert.equal(logged.file, file(plane));
      assert.match(logged.msg, /could not load its database/);
    }
    assert.equal((await call(targets.get('root')!, 'GET', '/readyz')).status, 200);
    assert.equal(server!.child.exitCode, null, 'the server is still running');
  });

  it('leaves the damaged files as they were', async () => {
    const hub = await readFile(file('hub'));
    assert.ok(hub.equals(Buffer.alloc(64 * 1024, 'not a database ')));
  });
});
