/**
 * The embedded API server through @kubernetes/client-node 1.4, as controllers will use it:
 * CRUD on built-ins and on a CRD kind behind a path-prefixed plane, optimistic concurrency,
 * informers that survive a 410, and isolation between planes.
 */
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, startTestServer, type TestServer } from '../support/apiserver.ts';

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { color: { type: 'string' } } },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

async function apiCode(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (err) {
    return (err as k8s.ApiException<unknown>).code;
  }
}

describe('apiserver through client-node', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['hub', 'cell'], {
      plane: { historyLimit: 20 },
      watch: { defaultTimeoutMs: [300, 400] },
    });
  });
  after(async () => t.stop());

  it('creates, reads, updates and deletes ConfigMaps in a path-prefixed plane', async () => {
    const core = t.kubeConfig('hub').makeApiClient(k8s.CoreV1Api);
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'settings' }, data: { mtu: '1460' } },
    });
    assert.ok(created.metadata?.uid);
    assert.ok(created.metadata?.creationTimestamp);
    const read = await core.readNamespacedConfigMap({ name: 'settings', namespace: 'default' });
    assert.equal(read.data?.mtu, '1460');
    read.data = { mtu: '9000' };
    const updated = await core.replaceNamespacedConfigMap({
      name: 'settings',
      namespace: 'default',
      body: read,
    });
    assert.equal(updated.data?.mtu, '9000');
    assert.ok(Number(updated.metadata?.resourceVersion) > Number(created.metadata?.resourceVersion));
    await core.deleteNamespacedConfigMap({ name: 'settings', namespace: 'default' });
    assert.equal(
      await apiCode(core.readNamespacedConfigMap({ name: 'settings', namespace: 'default' })),
      404,
    );
  });

  it('answers 409 to an update carrying a stale resourceVersion', async () => {
    const core = t.kubeConfig('hub').makeApiClient(k8s.CoreV1Api);
    const first = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'race' } },
    });
    await core.replaceNamespacedConfigMap({
      name: 'race',
      namespace: 'default',
      body: { ...first, data: { winner: 'a' } },
    });
    const code = await apiCode(
      core.replaceNamespacedConfigMap({
        name: 'race',
        namespace: 'default',
        body: { ...first, data: { winner: 'b' } },
      }),
    );
    assert.equal(code, 409);
    const stored = await core.readNamespacedConfigMap({ name: 'race', namespace: 'default' });
    assert.equal(stored.data?.winner, 'a');
  });

  it('serves a CRD kind the moment the CRD is created, with status as a subresource', async () => {
    const kc = t.kubeConfig('hub');
    const ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
    const crd = await ext.createCustomResourceDefinition({ body: widgetCrd });
    const established = crd.status?.conditions?.find((c) => c.type === 'Established');
    assert.equal(established?.status, 'True');
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const target = { group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' };
    const widget = await custom.createNamespacedCustomObject({
      ...target,
      body: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { color: 'red' },
      },
    });
    assert.equal(widget.metadata.generation, 1);
    const patched = await custom.patchNamespacedCustomObject({
      ...target,
      name: 'w1',
      body: [{ op: 'replace', path: '/spec/color', value: 'blue' }],
    });
    assert.equal(patched.spec.color, 'blue');
    assert.equal(patched.metadata.generation, 2);
    const withStatus = await custom.patchNamespacedCustomObjectStatus({
      ...target,
      name: 'w1',
      body: [{ op: 'add', path: '/status', value: { phase: 'Ready' } }],
    });
    assert.equal(withStatus.status.phase, 'Ready');
    assert.equal(withStatus.metadata.generation, 2, 'status writes never bump generation');
    const list = await custom.listNamespacedCustomObject(target);
    assert.deepEqual(
      list.items.map((w: any) => w.metadata.name),
      ['w1'],
    );
    await custom.deleteNamespacedCustomObject({ ...target, name: 'w1' });
    assert.equal(await apiCode(custom.getNamespacedCustomObject({ ...target, name: 'w1' })), 404);
  });

  it('keeps two planes isolated: the same name is two objects with separate revisions', async () => {
    const hub = t.kubeConfig('hub').makeApiClient(k8s.CoreV1Api);
    const cell = t.kubeConfig('cell').makeApiClient(k8s.CoreV1Api);
    await hub.createNamespace({ body: { metadata: { name: 'shared-name' } } });
    assert.equal(await apiCode(cell.readNamespace({ name: 'shared-name' })), 404);
    const onCell = await cell.createNamespace({ body: { metadata: { name: 'shared-name' } } });
    const onHub = await hub.readNamespace({ name: 'shared-name' });
    assert.notEqual(onCell.metadata?.uid, onHub.metadata?.uid);
    const hubRevision = Number((await hub.listNamespace()).metadata?.resourceVersion);
    const cellRevision = Number((await cell.listNamespace()).metadata?.resourceVersion);
    assert.ok(hubRevision > 0 && cellRevision > 0);
    await hub.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'only-hub' } } });
    assert.equal(Number((await cell.listNamespace()).metadata?.resourceVersion), cellRevision);
  });

  it('feeds an informer ADDED, MODIFIED and DELETED, and it recovers from a 410 by relisting', async () => {
    const kc = t.kubeConfig('hub');
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'informed' } } });
    let lists = 0;
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/informed/configmaps', () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: 'informed' });
    });
    const seen: string[] = [];
    informer.on('add', (cm) => seen.push(`add ${cm.metadata?.name}`));
    informer.on('update', (cm) => seen.push(`update ${cm.metadata?.name} ${cm.data?.v}`));
    informer.on('delete', (cm) => seen.push(`delete ${cm.metadata?.name}`));
    await informer.start();
    try {
      await core.createNamespacedConfigMap({
        namespace: 'informed',
        body: { metadata: { name: 'a' }, data: { v: '1' } },
      });
      await eventually(() => (seen.includes('add a') ? true : undefined), 5000, 'ADDED');
      await core.patchNamespacedConfigMap(
        { name: 'a', namespace: 'informed', body: { data: { v: '2' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await eventually(() => (seen.includes('update a 2') ? true : undefined), 5000, 'MODIFIED');
      await core.deleteNamespacedConfigMap({ name: 'a', namespace: 'informed' });
      await eventually(() => (seen.includes('delete a') ? true : undefined), 5000, 'DELETED');

      // Push the informer's resume point out of the 20-event window while its watch is between
      // connections (the server ends each watch after 300–400 ms), so its next watch gets 410.
      const listsBefore = lists;
      for (let i = 0; i < 60; i++) {
        await core.createNamespacedSecret({
          namespace: 'default',
          body: { metadata: { name: `filler-${i}` } },
        });
      }
      await eventually(() => (lists > listsBefore ? true : undefined), 10_000, 'a relist after 410');
      await core.createNamespacedConfigMap({ namespace: 'informed', body: { metadata: { name: 'b' } } });
      await eventually(() => (seen.includes('add b') ? true : undefined), 10_000, 'ADDED after relist');
    } finally {
      await informer.stop();
    }
  });
});
