/**
 * The latency metrics of a request, at both ends, through the real HTTP API: the server's
 * `apiserver_request_duration_seconds` (request-durations.ts) and the client's
 * `rest_client_request_duration_seconds` (client/request-latency.ts, runtime/metrics.ts), each
 * one observation per answered request, labelled as kube-apiserver and client-go label them,
 * watches left out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { RequestDurations } from '../../src/apiserver/request-durations.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import { send } from '../../src/client/transport.ts';
import type { KubeObject, ResourceClient } from '../../src/client/types.ts';
import { RuntimeMetrics } from '../../src/runtime/metrics.ts';
import { eventually, startTestServer, type TestServer } from '../support/apiserver.ts';

const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };

/** `label values joined by spaces` → the histogram's observation count. */
async function counts(registry: Registry, name: string, labels: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const values = (await registry.getSingleMetric(name)!.get()).values as {
    metricName?: string;
    labels: Record<string, string | number>;
    value: number;
  }[];
  for (const { metricName, labels: by, value } of values)
    if (metricName === `${name}_count`) out.set(labels.map((l) => by[l]).join(' '), value);
  return out;
}

describe('request latency metrics', () => {
  const server = new Registry();
  const client = new RuntimeMetrics();
  let stopObserving: () => void;
  let test: TestServer;
  let configMaps: ResourceClient<KubeObject>;

  before(async () => {
    test = await startTestServer([], { requestDurations: new RequestDurations(server) });
    stopObserving = client.observeClientRequests();
    configMaps = resourceClient(test.kubeConfig(), CONFIG_MAPS);
  });
  after(async () => {
    stopObserving();
    await test.stop();
  });

  it('observes each answered request once by verb and resource at the server, and by method and host at the client; watches neither', async () => {
    const events: string[] = [];
    const watch = await configMaps.watch(
      { namespace: 'default', resourceVersion: '0' },
      (...[type]) => void events.push(type),
      () => undefined,
    );
    const created = await configMaps.create({
      metadata: { name: 'timed', namespace: 'default' },
      data: { a: '1' },
    });
    await configMaps.get('timed', 'default');
    await configMaps.list({ namespace: 'default' });
    await configMaps.update({ ...created, data: { a: '2' } });
    await configMaps.patchMerge('timed', 'default', { data: { a: '3' } });
    await configMaps.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'timed', namespace: 'default' },
        data: { b: '1' },
      },
      { fieldManager: 'test' },
    );
    await send(test.kubeConfig(), { method: 'GET', path: '/api' });
    await configMaps.delete('timed', 'default');
    await eventually(
      () => (events.includes('DELETED') ? true : undefined),
      5000,
      'the watch to see the delete',
    );
    watch.abort();

    const host = new URL(test.server.url('root')).host;
    assert.deepEqual(
      Object.fromEntries(
        await counts(server, 'apiserver_request_duration_seconds', ['verb', 'resource', 'subresource']),
      ),
      {
        'POST configmaps ': 1,
        'GET configmaps ': 1,
        'LIST configmaps ': 1,
        'PUT configmaps ': 1,
        'PATCH configmaps ': 1,
        'APPLY configmaps ': 1,
        'GET  ': 1,
        'DELETE configmaps ': 1,
      },
    );
    assert.deepEqual(
      Object.fromEntries(
        await counts(client.registry, 'rest_client_request_duration_seconds', ['verb', 'host']),
      ),
      {
        [`POST ${host}`]: 1,
        [`GET ${host}`]: 3,
        [`PUT ${host}`]: 1,
        [`PATCH ${host}`]: 2,
        [`DELETE ${host}`]: 1,
      },
    );
  });
});
