/**
 * `netpresence up --data-dir` restarted on a data directory where one plane's file is damaged
 * (issue 13): the fleet comes up anyway; that plane serves read-only, refuses writes 503 naming
 * itself and fails its /readyz saying why; the others work normally.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { call, type PlaneTarget } from '../support/child-server.ts';
import { startChildFleet, type ChildFleet } from '../support/fleet.ts';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

function target(fleet: ChildFleet, context: string): PlaneTarget {
  const kubeConfig = fleet.kubeConfig(context);
  const cluster = kubeConfig.getCurrentCluster()!;
  return {
    base: cluster.server,
    token: kubeConfig.getCurrentUser()!.token!,
    ca: Buffer.from(cluster.caData!, 'base64').toString(),
    agent: new Agent({ keepAlive: false }),
  };
}

describe('netpresence up on a data directory holding a damaged plane', () => {
  it('comes up anyway, serving that plane read-only with a failing /readyz, and every other plane as before', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'netpresence-fleet-degraded-'));
    const fleets: ChildFleet[] = [];
    try {
      const first = await startChildFleet({ dataDir });
      fleets.push(first);
      assert.equal(await first.stop(), 0);
      const file = join(dataDir, 'planes', 'cell-spare.db');
      await writeFile(file, Buffer.alloc(32 * 1024, 'not a database '));
      await rm(`${file}-wal`, { force: true });

      const second = await startChildFleet({ dataDir, dir: first.dir, timeoutMs: 120_000 });
      fleets.push(second);
      const spare = target(second, 'cell-spare');
      const ready = await call(spare, 'GET', '/readyz');
      assert.equal(ready.status, 500, ready.body);
      assert.match(
        ready.body,
        /^\[-\]storage failed: plane cell-spare is read-only: .*file is not a database/,
      );
      assert.ok(ready.body.includes(file), ready.body);
      const refused = await call(spare, 'POST', CONFIGMAPS, { metadata: { name: 'x' } });
      assert.equal(refused.status, 503, refused.body);
      assert.equal((JSON.parse(refused.body) as { reason: string }).reason, 'ServiceUnavailable');

      for (const context of ['hub', 'platform', 'cell-us-central-1']) {
        const other = target(second, context);
        assert.equal((await call(other, 'GET', '/readyz')).status, 200, context);
        const created = await call(other, 'POST', CONFIGMAPS, { metadata: { name: 'after-restart' } });
        assert.equal(created.status, 201, `${context}: ${created.body}`);
      }
      assert.equal(second.child.exitCode, null, 'the fleet is still running');
    } finally {
      for (const fleet of fleets) await fleet.dispose();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
