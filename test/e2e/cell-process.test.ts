/**
 * `netpresence cell` as a user runs it: a child process given the cell's kubeconfig and the IPAM
 * base's kubeconfig, written from an embedded API server serving fixture K. It serves /healthz,
 * /readyz and /metrics (the identity gauges included), takes the `netpresence-cell` Lease in
 * `kube-system` of the cell, binds a claim with an address from the project's IPAM, and exits
 * cleanly on SIGTERM, releasing the Lease.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resourceClient } from '../../src/client/resource-client.ts';
import { CELL_LEASE, CELL_LEASE_NAMESPACE } from '../../src/processes/cell.ts';
import { LEASES, type Lease } from '../../src/runtime/leader-election.ts';
import { eventually } from '../support/apiserver.ts';
import { bound, CELL_A, createClaim, startFixtureK, type CellScenario } from '../support/cell-fixtures.ts';
import { get, startCellProcess, type RunningProcess } from '../support/process.ts';

describe('netpresence cell', () => {
  let k: CellScenario;
  let dir: string;
  let cell: RunningProcess;

  before(async () => {
    k = await startFixtureK({ controllers: false });
    dir = await mkdtemp(join(tmpdir(), 'netpresence-cell-'));
    const cellKubeconfig = join(dir, 'cell.kubeconfig');
    const ipamKubeconfig = join(dir, 'ipam.kubeconfig');
    await writeFile(cellKubeconfig, k.s.kubeConfig(CELL_A).exportConfig(), { mode: 0o600 });
    await writeFile(ipamKubeconfig, k.s.kubeConfig('platform').exportConfig(), { mode: 0o600 });
    cell = await startCellProcess({ kubeconfig: cellKubeconfig, ipamKubeconfig, identity: 'cell-test' });
  });

  after(async () => {
    if (cell.child.exitCode === null) cell.child.kill('SIGKILL');
    await k.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves /healthz, /readyz and /metrics with the identity gauges', async () => {
    assert.deepEqual(await get(`${cell.healthUrl}/healthz`), { status: 200, body: 'ok' });
    await eventually(
      async () => ((await get(`${cell.healthUrl}/readyz`)).status === 200 ? true : undefined),
      10_000,
      '/readyz',
    );
    const metrics = await eventually(
      async () => {
        const answer = await get(`${cell.metricsUrl}/metrics`);
        return /netpresence_cell_location_identity_source\{/.test(answer.body) ? answer : undefined;
      },
      10_000,
      'the identity gauge',
    );
    assert.equal(metrics.status, 200);
    assert.match(
      metrics.body,
      /netpresence_cell_location_identity_source\{source="Delivered",location="us-central-1"\} 1/,
    );
    assert.match(metrics.body, /# TYPE controller_runtime_reconcile_total counter/);
  });

  it('holds the netpresence-cell Lease in kube-system of the cell', async () => {
    const leases = resourceClient<Lease>(k.s.kubeConfig(CELL_A), LEASES);
    const lease = await eventually(
      async () => {
        const held = await leases.get(CELL_LEASE, CELL_LEASE_NAMESPACE);
        return held?.spec?.holderIdentity ? held : undefined;
      },
      10_000,
      'the cell Lease',
    );
    assert.equal(lease.spec?.holderIdentity, 'cell-test');
  });

  it('binds a claim with an address from the project IPAM', async () => {
    await createClaim(k, 'web-0-eth0');
    const claim = await bound(k, 'web-0-eth0', k.H, 10_000);
    assert.equal(claim.status?.addresses?.[0].address, 'fd20::1:0:0/96');
  });

  it('exits 0 on SIGTERM, having released the Lease', async () => {
    cell.child.kill('SIGTERM');
    assert.equal(await cell.exited, 0);
    const lease = await resourceClient<Lease>(k.s.kubeConfig(CELL_A), LEASES).get(
      CELL_LEASE,
      CELL_LEASE_NAMESPACE,
    );
    assert.ok(lease, 'the cell Lease');
    assert.equal(lease.spec?.holderIdentity, undefined, 'the cell released the Lease on SIGTERM');
  });
});
