/**
 * `netpresence propagator` as a user runs it: a child process given a hub kubeconfig written from
 * an embedded API server. It serves /healthz, /readyz and /metrics, takes the
 * `netpresence-propagator` Lease in `karmada-system`, reaches a member through its Cluster and a
 * kubeconfig Secret, propagates a template there, and exits cleanly on SIGTERM.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cellCrds, hubCrds, propagationCrds } from '../../src/apis/crds.ts';
import { installCrds } from '../../src/apis/install-crds.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import { PROPAGATOR_LEASE, PROPAGATOR_LEASE_NAMESPACE } from '../../src/processes/propagator.ts';
import { LEASES, type Lease } from '../../src/runtime/leader-election.ts';
import { eventually, startTestServer, type TestServer } from '../support/apiserver.ts';
import { propagatedThroughSecret } from '../support/propagation-harness.ts';
import { get, startProcess, type RunningProcess } from '../support/process.ts';

const MEMBER = 'cell-dfw-1';

describe('netpresence propagator', () => {
  let t: TestServer;
  let propagator: RunningProcess;

  before(async () => {
    t = await startTestServer(['hub', MEMBER]);
    await installCrds(t.kubeConfig('hub'), [...hubCrds, ...propagationCrds]);
    await installCrds(t.kubeConfig(MEMBER), cellCrds);
    const hubKubeconfig = join(t.dir, 'hub.kubeconfig');
    await writeFile(hubKubeconfig, t.kubeConfig('hub').exportConfig(), { mode: 0o600 });
    propagator = await startProcess('propagator', ['--hub-kubeconfig', hubKubeconfig, '--log-level', 'warn']);
  });

  after(async () => {
    if (propagator.child.exitCode === null) propagator.child.kill('SIGKILL');
    await t.stop();
  });

  it('serves /healthz, /readyz and /metrics', async () => {
    assert.deepEqual(await get(`${propagator.healthUrl}/healthz`), { status: 200, body: 'ok' });
    await eventually(
      async () => ((await get(`${propagator.healthUrl}/readyz`)).status === 200 ? true : undefined),
      10_000,
      '/readyz',
    );
    const metrics = await get(`${propagator.metricsUrl}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /# TYPE controller_runtime_reconcile_total counter/);
  });

  it('holds the netpresence-propagator Lease in karmada-system of the hub', async () => {
    const leases = resourceClient<Lease>(t.kubeConfig('hub'), LEASES);
    const lease = await eventually(
      async () => {
        const held = await leases.get(PROPAGATOR_LEASE, PROPAGATOR_LEASE_NAMESPACE);
        return held?.spec?.holderIdentity ? held : undefined;
      },
      10_000,
      'the propagator Lease',
    );
    assert.ok(lease.spec?.holderIdentity);
  });

  it('propagates a template to a member reached through its Cluster and kubeconfig Secret', async () => {
    const copy = await propagatedThroughSecret(t.kubeConfig('hub'), t.kubeConfig(MEMBER), MEMBER);
    assert.equal(copy.metadata.labels?.['karmada.io/managed'], 'true');
  });

  it('exits 0 on SIGTERM, having released the Lease', async () => {
    propagator.child.kill('SIGTERM');
    assert.equal(await propagator.exited, 0);
    const lease = await resourceClient<Lease>(t.kubeConfig('hub'), LEASES).get(
      PROPAGATOR_LEASE,
      PROPAGATOR_LEASE_NAMESPACE,
    );
    assert.ok(lease, 'the propagator Lease');
    assert.equal(lease.spec?.holderIdentity, undefined, 'the propagator released the Lease on SIGTERM');
  });
});
