import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import type { ResourceClient } from '../../client/types.ts';
import type { PlaneAccess } from '../../runtime/manager-context.ts';
import { FakeClock } from '../../runtime/clock.ts';
import { Store } from '../../runtime/store.ts';
import { probe, reconcile, PROBE_INTERVAL_MS, type HealthDeps, type HealthMemory } from './health-probe.ts';
import { after as requeueAfter } from '../../runtime/controller.ts';

/** A member whose `/readyz` and `/healthz` answer with the codes the test sets. */
const answers = { readyz: 200, healthz: 200 };
let server: http.Server;
let url: string;

before(async () => {
  server = http.createServer((req, res) => {
    const code = req.url === '/readyz' ? answers.readyz : req.url === '/healthz' ? answers.healthz : 404;
    res.writeHead(code).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function kubeConfigFor(server: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kubeConfig;
}

describe('the Ready probe', () => {
  it('reads 200 as ready, anything else as not ready, and no answer as not reachable', async () => {
    const clock = new FakeClock();
    Object.assign(answers, { readyz: 200, healthz: 200 });
    assert.equal(await probe(kubeConfigFor(url), clock), 'ready');
    answers.readyz = 500;
    assert.equal(await probe(kubeConfigFor(url), clock), 'notReady');
    assert.equal(await probe(kubeConfigFor('http://127.0.0.1:1'), clock), 'notReachable');
  });

  it('falls back to /healthz when /readyz answers 404', async () => {
    const clock = new FakeClock();
    Object.assign(answers, { readyz: 404, healthz: 200 });
    assert.equal(await probe(kubeConfigFor(url), clock), 'ready');
    answers.healthz = 503;
    assert.equal(await probe(kubeConfigFor(url), clock), 'notReady');
  });

  it('writes the first outcome at once and a change only after it persisted 30 s', async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const clusters = new Store<Cluster>();
    let revision = 1;
    const put = (cluster: Cluster) =>
      clusters.apply({
        type: 'MODIFIED',
        object: { ...cluster, metadata: { ...cluster.metadata, resourceVersion: String(++revision) } },
      });
    put({ metadata: { name: 'cell-dfw-1' }, spec: { syncMode: 'Push' } });
    const writes: { status: string; reason: string; at: number }[] = [];
    const clustersClient = {
      patchMerge: async (name: string, _ns: unknown, patch: { status: Cluster['status'] }) => {
        const ready = patch.status!.conditions!.find((c) => c.type === 'Ready')!;
        writes.push({ status: ready.status, reason: ready.reason, at: clock.now() });
        const current = clusters.get(undefined, name)!;
        put({ ...current, status: patch.status });
        return current;
      },
    } as unknown as ResourceClient<Cluster>;
    const deps: HealthDeps = {
      clusters,
      clustersClient,
      members: {
        plane: async () => ({ kubeConfig: kubeConfigFor(url) }) as PlaneAccess,
        forget: async () => undefined,
        close: async () => undefined,
      },
      clock,
    };
    const memory: HealthMemory = { observed: new Set(), pending: new Map() };
    const round = async () => {
      const result = await reconcile('cell-dfw-1', deps, memory);
      assert.deepEqual(result, requeueAfter(PROBE_INTERVAL_MS));
    };
    const start = clock.now();
    Object.assign(answers, { readyz: 200, healthz: 200 });
    await round();
    assert.deepEqual(writes, [{ status: 'True', reason: 'ClusterReady', at: start }]);

    answers.readyz = 500;
    for (let i = 0; i < 3; i++) {
      await clock.advance(PROBE_INTERVAL_MS);
      await round();
    }
    assert.equal(writes.length, 1, 'a failure is not written before it has persisted 30 s');
    await clock.advance(PROBE_INTERVAL_MS);
    await round();
    assert.deepEqual(writes[1], {
      status: 'False',
      reason: 'ClusterNotReady',
      at: start + 4 * PROBE_INTERVAL_MS,
    });

    // A blip: one good answer, then failing again — the good one never lasted, nothing is written.
    answers.readyz = 200;
    await clock.advance(PROBE_INTERVAL_MS);
    await round();
    answers.readyz = 500;
    await clock.advance(PROBE_INTERVAL_MS);
    await round();
    assert.equal(writes.length, 2);
  });
});
