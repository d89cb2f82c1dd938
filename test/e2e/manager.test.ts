/**
 * `netpresence manager` as a user runs it: a child process given a hub kubeconfig and a platform
 * kubeconfig written from an embedded API server. It serves /healthz, /readyz and /metrics,
 * takes the `netpresence-manager` Lease, reaches a project plane discovered from its Project at
 * the Milo path, runs the project and hub controllers there, and exits cleanly on SIGTERM.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hubCrds, platformCrds, projectCrds } from '../../src/apis/crds.ts';
import { installCrds } from '../../src/apis/install-crds.ts';
import { hubNamespaceName } from '../../src/apis/common/upstream.ts';
import type { NetworkContext } from '../../src/apis/networking/v1alpha/network-context.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import { MANAGER_LEASE, MANAGER_LEASE_NAMESPACE } from '../../src/processes/manager.ts';
import { LEASES, type Lease } from '../../src/runtime/leader-election.ts';
import { projectKubeConfig } from '../../src/runtime/planes.ts';
import { eventually, startTestServer, type TestServer } from '../support/apiserver.ts';
import { NAMESPACES, SERVING_LOCATIONS } from '../support/hub-fixtures.ts';
import { fixtureTopology, LOCATIONS, NETWORK_CONTEXTS, PROJECTS } from '../support/project-fixtures.ts';
import { get, startProcess, type RunningProcess } from '../support/process.ts';

describe('netpresence manager', () => {
  let t: TestServer;
  let manager: RunningProcess;

  before(async () => {
    t = await startTestServer(['hub']);
    await installCrds(t.kubeConfig('root'), platformCrds);
    await installCrds(t.kubeConfig('hub'), hubCrds);
    const hubKubeconfig = join(t.dir, 'hub.kubeconfig');
    const platformKubeconfig = join(t.dir, 'platform.kubeconfig');
    await writeFile(hubKubeconfig, t.kubeConfig('hub').exportConfig(), { mode: 0o600 });
    await writeFile(platformKubeconfig, t.kubeConfig('root').exportConfig(), { mode: 0o600 });
    manager = await startProcess('manager', [
      '--hub-kubeconfig',
      hubKubeconfig,
      '--platform-kubeconfig',
      platformKubeconfig,
      '--log-level',
      'warn',
    ]);
  });

  after(async () => {
    if (manager.child.exitCode === null) manager.child.kill('SIGKILL');
    await t.stop();
  });

  it('serves /healthz, /readyz and /metrics', async () => {
    assert.deepEqual(await get(`${manager.healthUrl}/healthz`), { status: 200, body: 'ok' });
    await eventually(
      async () => ((await get(`${manager.healthUrl}/readyz`)).status === 200 ? true : undefined),
      10_000,
      '/readyz',
    );
    const metrics = await get(`${manager.metricsUrl}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /# TYPE controller_runtime_reconcile_total counter/);
    assert.match(metrics.body, /# TYPE workqueue_depth gauge/);
  });

  it('holds the netpresence-manager Lease in kube-system of the hub', async () => {
    const leases = resourceClient<Lease>(t.kubeConfig('hub'), LEASES);
    const lease = await eventually(
      async () => {
        const held = await leases.get(MANAGER_LEASE, MANAGER_LEASE_NAMESPACE);
        return held?.spec?.holderIdentity ? held : undefined;
      },
      10_000,
      'the manager Lease',
    );
    assert.ok(lease.spec?.holderIdentity);
  });

  it('reaches a project plane discovered from its Project and runs the controllers', async () => {
    t.server.addProjectPlane('project-alpha');
    const projectConfig = projectKubeConfig(t.kubeConfig('root'), 'project-alpha');
    await installCrds(projectConfig, projectCrds);
    const projects = resourceClient(t.kubeConfig('root'), PROJECTS);
    await projects.create({
      metadata: { name: 'project-alpha' },
      spec: { ownerRef: { kind: 'Organization', name: 'acme' } },
    });
    await projects.patchMerge(
      'project-alpha',
      undefined,
      {
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'Ready',
              message: 'ready',
              lastTransitionTime: '2030-01-01T00:00:00Z',
            },
          ],
        },
      },
      { subresource: 'status' },
    );
    await resourceClient<NetworkContext>(projectConfig, NETWORK_CONTEXTS).create({
      metadata: { name: 'vpc-us-central-1', namespace: 'default' },
      spec: { network: { name: 'vpc' }, location: { name: 'us-central-1' }, ipFamilies: ['IPv4'], mtu: 1460 },
    });
    const uid = (await resourceClient(projectConfig, NAMESPACES).get('default'))!.metadata.uid!;
    await eventually(
      () =>
        resourceClient(t.kubeConfig('hub'), NETWORK_CONTEXTS).get('vpc-us-central-1', hubNamespaceName(uid)),
      10_000,
      'the replicator to copy the context to the hub',
    );

    await resourceClient(t.kubeConfig('root'), LOCATIONS).create({
      metadata: { name: 'us-central-1' },
      spec: { locationClassName: 'datum-managed', topology: fixtureTopology(), provider: {} },
    });
    await eventually(
      () => resourceClient(t.kubeConfig('hub'), SERVING_LOCATIONS).get('us-central-1'),
      10_000,
      'the location publisher (the Lease holder) to publish the location',
    );
    const metrics = await get(`${manager.metricsUrl}/metrics`);
    assert.match(
      metrics.body,
      /controller_runtime_reconcile_total\{controller="replicator",result="success"\} [1-9]/,
    );
  });

  it('exits 0 on SIGTERM, having released the Lease', async () => {
    manager.child.kill('SIGTERM');
    assert.equal(await manager.exited, 0);
    const lease = await resourceClient<Lease>(t.kubeConfig('hub'), LEASES).get(
      MANAGER_LEASE,
      MANAGER_LEASE_NAMESPACE,
    );
    assert.ok(lease, 'the manager Lease');
    assert.equal(lease.spec?.holderIdentity, undefined, 'the manager released the Lease on SIGTERM');
  });
});
