/**
 * A standalone engine (propagation.md §1.2; scenarios 48 and 49 of §9): members reached through
 * `Cluster` objects and their hub Secrets, and the engine's own Ready probe on the fake clock.
 * The engine runs in standalone mode against the harness's hub and member planes; for the probe
 * scenario the member sits behind a small HTTP stand-in whose `/readyz` the test controls.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Cluster } from '../../src/apis/cluster/v1alpha1/cluster.ts';
import { CLUSTER_LOCATION_LABEL } from '../../src/apis/common/labels.ts';
import type { NetworkContext } from '../../src/apis/networking/v1alpha/network-context.ts';
import { startEngine, type Engine } from '../../src/propagation/engine.ts';
import { standaloneMembers } from '../../src/propagation/member/index.ts';
import {
  CLUSTERS,
  CPPS,
  DFW_1,
  DFW_2,
  NAMESPACES,
  NCS,
  NS_A,
  TEMPLATE,
  WORK_NAME,
  conditionOf,
  contextTemplate,
  copyOn,
  locationPolicy,
  startPropagationHarness,
  waitCopy,
  waitPlaced,
  workIn,
  type Policy,
  type PropagationHarness,
} from '../support/propagation-harness.ts';

const SECRETS = { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true };
const CLUSTER_SECRETS = 'karmada-cluster';
const DFW = { [CLUSTER_LOCATION_LABEL]: 'dfw' };

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

async function startStandalone(h: PropagationHarness): Promise<Engine> {
  return startEngine({
    mode: 'standalone',
    hub: h.kubeConfig('hub'),
    members: (hub) => standaloneMembers({ hub, clock: h.clock, log: h.log }),
    log: h.log,
    clock: h.clock,
    metrics: h.metrics,
  });
}

/** Waits for Cluster `name`'s Ready to have `reason`. */
function waitReady(h: PropagationHarness, name: string, reason: string) {
  return h.eventually(async () => {
    const ready = conditionOf(await h.hub<Cluster>(CLUSTERS).get(name), 'Ready');
    return ready?.reason === reason ? ready : undefined;
  }, `Cluster ${name} Ready reason ${reason}`);
}

/** A Push Cluster the engine reaches through `spec`; its Ready is left to the engine's probe. */
async function addCluster(h: PropagationHarness, name: string, spec: Cluster['spec']): Promise<void> {
  await h
    .hub<Cluster>(CLUSTERS)
    .create({ metadata: { name, labels: DFW }, spec: { syncMode: 'Push', ...spec } });
}

describe('propagation: a standalone engine', () => {
  let h: PropagationHarness;
  let engine: Engine | undefined;
  beforeEach(async () => {
    h = await startPropagationHarness({ engine: false, noClusters: true });
    await h.hub(NAMESPACES).create({ metadata: { name: CLUSTER_SECRETS } });
  });
  afterEach(async () => {
    await engine?.stop();
    engine = undefined;
    await h.stop();
  });

  it('P48 members reached through a kubeconfig Secret and through endpoint, token and CA bundle', async () => {
    const secrets = h.hub(SECRETS);
    await secrets.create({
      metadata: { name: DFW_1, namespace: CLUSTER_SECRETS },
      data: { kubeconfig: base64(h.server.kubeconfig(h.server.adminToken, [DFW_1])) },
    });
    await secrets.create({
      metadata: { name: DFW_2, namespace: CLUSTER_SECRETS },
      data: { token: base64(h.server.adminToken), caBundle: base64(h.server.certificates.caCertPem) },
    });
    await addCluster(h, DFW_1, { secretRef: { namespace: CLUSTER_SECRETS, name: DFW_1 } });
    await addCluster(h, DFW_2, {
      apiEndpoint: h.server.url(DFW_2),
      secretRef: { namespace: CLUSTER_SECRETS, name: DFW_2 },
    });
    engine = await startStandalone(h);
    await waitReady(h, DFW_1, 'ClusterReady');
    await waitReady(h, DFW_2, 'ClusterReady');
    await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
    await h.hub<NetworkContext>(NCS).create(contextTemplate());
    await waitPlaced(h, [DFW_1, DFW_2]);
    for (const cluster of [DFW_1, DFW_2]) await waitCopy(h, cluster, (c) => c !== undefined, 'the copy');

    await secrets.patchJson(DFW_2, CLUSTER_SECRETS, [{ op: 'remove', path: '/data/token' }]);
    await h.hub(NCS).patchMerge(TEMPLATE, NS_A, { spec: { mtu: 1350 } });
    const applied = await h.eventually(async () => {
      const condition = conditionOf(await workIn(h, DFW_2), 'Applied');
      return condition?.status === 'False' ? condition : undefined;
    }, "cell-dfw-2's Work Applied=False");
    assert.ok(applied.message.includes(`cluster ${DFW_2}`), applied.message);
    assert.ok(applied.message.includes(`Secret ${CLUSTER_SECRETS}/${DFW_2}`), applied.message);
    assert.ok(applied.message.includes('token'), applied.message);
    await waitCopy(h, DFW_1, (c) => c?.spec.mtu === 1350, 'the new spec');
  });

  it('P49 the Ready probe: ready, then not ready after 30 s of 500s, then not reachable', async () => {
    const member = await standIn(h.server.url(DFW_1));
    try {
      await h.hub(SECRETS).create({
        metadata: { name: DFW_1, namespace: CLUSTER_SECRETS },
        data: { token: base64(h.server.adminToken) },
      });
      await addCluster(h, DFW_1, {
        apiEndpoint: `${member.url}/planes/${DFW_1}`,
        insecureSkipTLSVerification: true,
        secretRef: { namespace: CLUSTER_SECRETS, name: DFW_1 },
      });
      engine = await startStandalone(h);
      const ready = await waitReady(h, DFW_1, 'ClusterReady');
      assert.equal(ready.status, 'True');
      assert.equal(ready.message, 'cluster is healthy and ready to accept workloads');
      await h.hub<Policy>(CPPS).create(locationPolicy('dfw'));
      await h.hub<NetworkContext>(NCS).create(contextTemplate());
      await waitPlaced(h, [DFW_1]);
      const copy = (await waitCopy(h, DFW_1, (c) => c !== undefined, 'the copy'))!;

      member.answer = 'failing';
      const failedFrom = h.clock.now();
      const notReady = await waitReady(h, DFW_1, 'ClusterNotReady');
      assert.equal(notReady.status, 'False');
      assert.equal(notReady.message, 'cluster is reachable but health endpoint responded without ok');
      assert.ok(h.clock.now() - failedFrom >= 30_000, 'the change persisted 30 s before it was written');
      // The engine sees the Cluster and the Works on watches of their own: the Given holds once it
      // has acted on NotReady, or the new Work could reach execution before the Cluster's change.
      await h.idle();
      await h.hub(NCS).patchMerge(TEMPLATE, NS_A, { spec: { mtu: 1350 } });
      await h.eventually(async () => {
        const manifest = (await workIn(h, DFW_1, WORK_NAME))?.spec?.workload?.manifests?.[0] as
          NetworkContext | undefined;
        return manifest?.spec.mtu === 1350 ? true : undefined;
      }, 'the Work holding the new manifest');
      await h.idle();
      assert.equal((await copyOn(h, DFW_1))!.metadata.resourceVersion, copy.metadata.resourceVersion);

      member.answer = 'silent';
      const unreachable = await waitReady(h, DFW_1, 'ClusterNotReachable');
      assert.equal(unreachable.status, 'False');
      assert.equal(unreachable.message, 'cluster is not reachable');
    } finally {
      await member.close();
    }
  });
});

interface StandIn {
  url: string;
  /** How `/readyz` answers: 200, 500, or not at all (the connection is dropped). */
  answer: 'ready' | 'failing' | 'silent';
  close(): Promise<void>;
}

/** A plain-HTTP stand-in for a member: `/readyz` as told, every other request passed to `target`. */
async function standIn(target: string): Promise<StandIn> {
  const upstream = new URL(target);
  const state: StandIn = { url: '', answer: 'ready', close: async () => undefined };
  const server = http.createServer((req, res) => {
    if (req.url?.split('?')[0].endsWith('/readyz')) {
      if (state.answer === 'silent') return void req.socket.destroy();
      res.writeHead(state.answer === 'ready' ? 200 : 500, { 'Content-Type': 'text/plain' });
      return void res.end(state.answer === 'ready' ? 'ok' : 'not ok');
    }
    const forwarded = https.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
        rejectUnauthorized: false,
      },
      (response) => {
        res.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return state;
}
