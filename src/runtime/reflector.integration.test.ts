/**
 * The reflector against the embedded API server, through the real HTTP API and real time: it
 * survives the server being restarted (resuming without a relist) and a 410 (relisting and
 * reporting what it missed, deletions included).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { ApiServer } from '../apiserver/server.ts';
import { resourceClient } from '../client/resource-client.ts';
import type { KubeObject, ResourceClient, ResourceId } from '../client/types.ts';
import { eventually, startTestServer } from '../../test/support/apiserver.ts';
import type { InformerEvent } from './informer-contract.ts';
import { createInformer } from './informer.ts';

const CONFIGMAPS: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
const HISTORY_LIMIT = 5;
const silent = pino({ level: 'silent' });

const configMap = (name: string, value: string, namespace = 'default'): KubeObject => ({
  metadata: { name, namespace },
  data: { value },
});

/** The client with a gate in front of watch requests, and a count of list requests. */
function gated(client: ResourceClient) {
  let opened: Promise<void> = Promise.resolve();
  let open = (): void => undefined;
  let lists = 0;
  const wrapped: ResourceClient = {
    ...client,
    async list(options) {
      lists++;
      return client.list(options);
    },
    async watch(options, onEvent, done) {
      await opened;
      return client.watch(options, onEvent, done);
    },
  };
  return {
    client: wrapped,
    lists: () => lists,
    hold() {
      opened = new Promise((resolve) => (open = resolve));
    },
    release: () => open(),
  };
}

describe('reflector against the embedded API server', () => {
  it('survives a restart of the server and a 410, converging to the server state, deletions included', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'netpresence-reflector-'));
    const t = await startTestServer([], { dataDir, plane: { historyLimit: HISTORY_LIMIT } });
    let server = t.server;
    const port = server.port;
    const restart = async (): Promise<void> => {
      await server.stop();
      server = await ApiServer.start({ port, dataDir, plane: { historyLimit: HISTORY_LIMIT } });
    };
    const configMaps = resourceClient(t.kubeConfig(), CONFIGMAPS);
    const gate = gated(configMaps);
    const events: InformerEvent[] = [];
    const informer = createInformer({
      plane: 'root',
      client: gate.client,
      log: silent,
      namespace: 'default',
      reflector: { backoff: { maxMs: 500 } },
    });
    const serverState = async () =>
      (await configMaps.list({ namespace: 'default' })).items.map(
        (o) => `${o.metadata.name}@${o.metadata.resourceVersion}`,
      );
    const storeState = () =>
      informer.store.list().map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`);
    const converged = async () => {
      const expected = await serverState();
      return JSON.stringify(storeState()) === JSON.stringify(expected) ? expected : undefined;
    };
    try {
      for (const name of ['a', 'b', 'c']) await configMaps.create(configMap(name, '1'));
      informer.subscribe((event) => events.push(event));
      informer.start();
      await informer.synced();
      assert.deepEqual(
        informer.store.list().map((o) => o.metadata.name),
        ['a', 'b', 'c'],
      );

      // A restart: the watch breaks, the reflector reconnects from its last resourceVersion.
      await restart();
      await configMaps.create(configMap('d', '1'));
      await eventually(converged, 10_000, 'the store to see d after the restart');
      assert.equal(gate.lists(), 1, 'resumed without listing again');

      // A restart while the reflector is kept away long enough for its resume point to expire.
      gate.hold();
      await restart();
      await configMaps.delete('a', 'default');
      await configMaps.update({ ...(await configMaps.get('b', 'default'))!, data: { value: '2' } });
      await configMaps.create(configMap('e', '1'));
      for (let i = 0; i < 2 * HISTORY_LIMIT; i++)
        await configMaps.create(configMap(`churn-${i}`, '1', 'kube-system'));
      events.length = 0;
      gate.release();

      const state = await eventually(converged, 10_000, 'the store to converge after the 410');
      assert.deepEqual(
        state.map((entry) => entry.split('@')[0]),
        ['b', 'c', 'd', 'e'],
      );
      assert.equal(gate.lists(), 2, 'listed again after the 410');
      assert.deepEqual(
        events.map((e) => `${e.type} ${e.object.metadata.name}`),
        ['MODIFIED b', 'ADDED e', 'DELETED a'],
      );
    } finally {
      await informer.stop();
      await server.stop();
      await rm(t.dir, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
