/**
 * The runtime across planes, against the embedded API server: a `watches` trigger on one plane
 * wakes the right key of a controller keyed on another plane — the shape every netpresence
 * controller has (a project-plane change waking a hub binding).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { resourceClient } from '../../src/client/resource-client.ts';
import type { KubeObject, ResourceId } from '../../src/client/types.ts';
import { StaticPlane } from '../../src/runtime/manager-context.ts';
import { systemClock } from '../../src/runtime/clock.ts';
import { Controller } from '../../src/runtime/controller.ts';
import { rootLogger } from '../../src/runtime/logging.ts';
import { RuntimeMetrics } from '../../src/runtime/metrics.ts';
import { forObject, watches } from '../../src/runtime/triggers.ts';
import { eventually, startTestServer, type TestServer } from '../support/apiserver.ts';

const CONFIGMAPS: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};

interface HubKey {
  namespace: string;
  name: string;
}

describe('runtime across planes', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['hub', 'cell']);
  });
  after(async () => t.stop());

  it('wakes the hub key named by an event in another plane, and only that key', async () => {
    const log = rootLogger({ level: 'silent' });
    const hub = new StaticPlane('hub', t.kubeConfig('hub'), systemClock, log);
    const cell = new StaticPlane('cell', t.kubeConfig('cell'), systemClock, log);
    const reconciled: string[] = [];
    const controller = new Controller<HubKey>({
      name: 'mirror',
      clock: systemClock,
      log,
      metrics: new RuntimeMetrics(new Registry()),
      toString: (k) => `${k.namespace}/${k.name}`,
      fromString: (s) => ({ namespace: s.split('/')[0], name: s.split('/')[1] }),
      planeOf: () => 'hub',
      reconcile: async (key) => {
        reconciled.push(`${key.namespace}/${key.name}`);
      },
    });
    controller.watch(
      forObject(hub.informer<KubeObject>(CONFIGMAPS), (o) => ({
        namespace: o.metadata.namespace!,
        name: o.metadata.name!,
      })),
    );
    controller.watch(
      watches(cell.informer<KubeObject>(CONFIGMAPS), (event, plane) => {
        assert.equal(plane, 'cell');
        const hubName = event.object.metadata.labels?.['example.com/hub-name'];
        return hubName ? [{ namespace: 'default', name: hubName }] : [];
      }),
    );
    await Promise.all([hub.synced(), cell.synced()]);
    await controller.start();
    try {
      const cellClient = resourceClient(t.kubeConfig('cell'), CONFIGMAPS);
      await cellClient.create({ metadata: { name: 'unrelated', namespace: 'default' } });
      await cellClient.create({
        metadata: { name: 'local', namespace: 'default', labels: { 'example.com/hub-name': 'binding-a' } },
      });
      await eventually(
        () => (reconciled.includes('default/binding-a') ? true : undefined),
        5000,
        'the hub key to be reconciled',
      );
      assert.deepEqual(reconciled, ['default/binding-a']);
    } finally {
      await controller.stop();
      await Promise.all([hub.close(), cell.close()]);
    }
  });
});
