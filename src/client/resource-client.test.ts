import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, startTestServer, type TestServer } from '../../test/support/apiserver.ts';
import { retainedByLongerValue } from '../../test/support/retained.ts';
import { AlreadyExistsError, ConflictError, InvalidError } from './errors.ts';
import { resourceClient } from './resource-client.ts';
import type { KubeObject, ResourceClient, ResourceId } from './types.ts';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

interface Widget extends KubeObject {
  spec: { size: number };
  status?: { ready?: boolean };
}

const namespaces: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
};
const configMaps: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
const crds: ResourceId = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};
const widgets: ResourceId = {
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};

const widgetCrd: KubeObject = {
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
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
              spec: { type: 'object', properties: { size: { type: 'integer', minimum: 0 } } },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      },
    ],
  },
};

describe('resource client', () => {
  let t: TestServer;
  let cms: ResourceClient<ConfigMap>;

  before(async () => {
    t = await startTestServer(['hub']);
    const hub = t.kubeConfig('hub');
    assert.match(hub.getCurrentCluster()!.server, /\/planes\/hub$/);
    const ns = resourceClient(hub, namespaces);
    for (const name of ['alpha', 'beta']) await ns.create({ metadata: { name } });
    cms = resourceClient<ConfigMap>(hub, configMaps);
  });
  after(async () => t.stop());

  it('creates, reads, updates and deletes a ConfigMap in a path-prefixed plane', async () => {
    const created = await cms.create({ metadata: { name: 'crud', namespace: 'default' }, data: { a: '1' } });
    assert.equal(created.kind, 'ConfigMap');
    assert.ok(created.metadata.uid);
    const inRoot = resourceClient<ConfigMap>(t.kubeConfig('root'), configMaps);
    assert.equal(await inRoot.get('crud', 'default'), undefined, 'the root plane is another store');

    const read = await cms.get('crud', 'default');
    assert.deepEqual(read?.data, { a: '1' });

    const updated = await cms.update({ ...read, data: { a: '2' } });
    assert.deepEqual(updated.data, { a: '2' });
    assert.notEqual(updated.metadata.resourceVersion, read.metadata.resourceVersion);

    assert.equal(await cms.delete('crud', 'default'), true);
    assert.equal(await cms.get('crud', 'default'), undefined);
  });

  it('keeps one copy of a value a list repeats, for the caches that hold its items', async () => {
    // 100 ConfigMaps × 40 keys: 4,000 values of 900 characters are 3.6 MB when each is a copy.
    const listed = async (value: string) => {
      for (let i = 0; i < 100; i++) {
        const data = Object.fromEntries(Array.from({ length: 40 }, (_, k) => [`k${k}`, value]));
        const labels = { value: String(value.length) };
        await cms.create({
          metadata: { name: `repeat-${value.length}-${i}`, namespace: 'beta', labels },
          data,
        });
      }
      return cms.list({ namespace: 'beta', labelSelector: `value=${value.length}` });
    };
    const extra = await retainedByLongerValue(listed);
    assert.ok(extra < 1_000_000, `900-character values retained ${extra} bytes more than 1-character ones`);
  });

  it('reads a missing object as undefined', async () => {
    assert.equal(await cms.get('absent', 'alpha'), undefined);
  });

  it('rejects a request it cannot address, saying what is missing', async () => {
    await assert.rejects(cms.get('orphan'), {
      message: 'ConfigMap orphan is namespaced: give its namespace',
    });
    await assert.rejects(cms.create({ metadata: { name: 'orphan' } }), {
      message: 'ConfigMap orphan is namespaced: give its metadata.namespace',
    });
    await assert.rejects(cms.update({ metadata: { namespace: 'alpha' } }), {
      message: 'a ConfigMap needs a name for this request: give metadata.name',
    });
  });

  it('persists nothing on a dry-run create', async () => {
    const answered = await cms.create({ metadata: { name: 'dry', namespace: 'alpha' } }, { dryRun: true });
    assert.equal(answered.metadata.name, 'dry');
    assert.equal(await cms.get('dry', 'alpha'), undefined);
  });

  it('refuses a second create of one name with AlreadyExistsError', async () => {
    await cms.create({ metadata: { name: 'twice', namespace: 'alpha' } });
    await assert.rejects(cms.create({ metadata: { name: 'twice', namespace: 'alpha' } }), AlreadyExistsError);
  });

  it('refuses an update from a stale resourceVersion with ConflictError', async () => {
    const first = await cms.create({ metadata: { name: 'stale', namespace: 'alpha' }, data: { v: '1' } });
    await cms.update({ ...first, data: { v: '2' } });
    await assert.rejects(cms.update({ ...first, data: { v: '3' } }), ConflictError);
    assert.deepEqual((await cms.get('stale', 'alpha'))?.data, { v: '2' });
  });

  it('retries a read-modify-write that lost a race to another writer, on fresh state', async () => {
    await cms.create({ metadata: { name: 'counter', namespace: 'alpha' }, data: { count: '0' } });
    let runs = 0;
    const increment = async () => {
      runs++;
      const current = (await cms.get('counter', 'alpha'))!;
      if (runs === 1) await cms.patchMerge('counter', 'alpha', { data: { rival: 'was here' } });
      return cms.update({
        ...current,
        data: { ...current.data, count: String(Number(current.data!.count) + 1) },
      });
    };
    // The first write is refused as stale; the retry re-reads and wins.
    const written = await increment().catch(async (err: unknown) => {
      assert.ok(err instanceof ConflictError);
      return increment();
    });
    assert.equal(runs, 2);
    assert.deepEqual(written.data, { count: '1', rival: 'was here' });
  });

  it('merge-patches and JSON-patches an object', async () => {
    await cms.create({ metadata: { name: 'patched', namespace: 'alpha' }, data: { keep: 'x', drop: 'y' } });
    const merged = await cms.patchMerge('patched', 'alpha', { data: { drop: null, added: 'z' } });
    assert.deepEqual(merged.data, { keep: 'x', added: 'z' });
    const patched = await cms.patchJson('patched', 'alpha', [
      { op: 'test', path: '/data/keep', value: 'x' },
      { op: 'replace', path: '/data/keep', value: 'kept' },
      { op: 'add', path: '/metadata/labels', value: { tier: 'one' } },
    ]);
    assert.deepEqual(patched.data, { keep: 'kept', added: 'z' });
    assert.deepEqual(patched.metadata.labels, { tier: 'one' });
  });

  it('refuses a JSON patch whose test op fails with InvalidError 422, writing nothing', async () => {
    const before = await cms.create({
      metadata: { name: 'guarded', namespace: 'alpha' },
      data: { owner: 'me' },
    });
    await assert.rejects(
      cms.patchJson('guarded', 'alpha', [
        { op: 'test', path: '/data/owner', value: 'someone-else' },
        { op: 'remove', path: '/data/owner' },
      ]),
      (err: unknown) => err instanceof InvalidError && err.code === 422,
    );
    assert.equal(
      (await cms.get('guarded', 'alpha'))?.metadata.resourceVersion,
      before.metadata.resourceVersion,
    );
  });

  it('applies an object, creating it and then updating the fields it manages', async () => {
    const desired = { metadata: { name: 'applied', namespace: 'alpha' }, data: { mode: 'first' } };
    const created = await cms.apply(desired, { fieldManager: 'netpresence-test' });
    assert.equal(created.kind, 'ConfigMap');
    assert.deepEqual(created.data, { mode: 'first' });
    const updated = await cms.apply(
      { ...desired, data: { mode: 'second' } },
      { fieldManager: 'netpresence-test', force: true },
    );
    assert.equal(updated.metadata.uid, created.metadata.uid);
    assert.deepEqual(updated.data, { mode: 'second' });
  });

  it('deletes only when the preconditions hold, and reports a missing object as false', async () => {
    const doomed = await cms.create({ metadata: { name: 'doomed', namespace: 'alpha' } });
    await assert.rejects(
      cms.delete('doomed', 'alpha', { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } }),
      ConflictError,
    );
    assert.ok(await cms.get('doomed', 'alpha'));
    assert.equal(
      await cms.delete('doomed', 'alpha', {
        preconditions: { uid: doomed.metadata.uid, resourceVersion: doomed.metadata.resourceVersion },
        propagationPolicy: 'Background',
      }),
      true,
    );
    assert.equal(await cms.delete('doomed', 'alpha'), false);
  });

  it('lists by label selector across all namespaces, each item typed', async () => {
    await cms.create({ metadata: { name: 'red-1', namespace: 'alpha', labels: { color: 'red' } } });
    await cms.create({ metadata: { name: 'red-2', namespace: 'beta', labels: { color: 'red' } } });
    await cms.create({ metadata: { name: 'blue-1', namespace: 'beta', labels: { color: 'blue' } } });
    const red = await cms.list({ labelSelector: 'color=red' });
    assert.deepEqual(
      red.items.map((cm) => `${cm.metadata.namespace}/${cm.metadata.name}`),
      ['alpha/red-1', 'beta/red-2'],
    );
    assert.ok(red.items.every((cm) => cm.kind === 'ConfigMap' && cm.apiVersion === 'v1'));
    assert.match(red.resourceVersion, /^\d+$/);
    assert.equal(red.continue, undefined);
    const inBeta = await cms.list({ namespace: 'beta', labelSelector: 'color' });
    assert.deepEqual(
      inBeta.items.map((cm) => cm.metadata.name),
      ['blue-1', 'red-2'],
    );
  });

  it('pages a list with limit and continue', async () => {
    for (let i = 0; i < 5; i++)
      await cms.create({ metadata: { name: `page-${i}`, namespace: 'beta', labels: { paged: 'yes' } } });
    const names: string[] = [];
    let pages = 0;
    let token: string | undefined;
    do {
      const page = await cms.list({ labelSelector: 'paged=yes', limit: 2, continue: token });
      names.push(...page.items.map((cm) => cm.metadata.name!));
      token = page.continue;
      pages++;
    } while (token);
    assert.deepEqual(names, ['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
    assert.equal(pages, 3);
  });

  it('serves a CRD kind created through the client, with its status subresource', async () => {
    const crdClient = resourceClient(t.kubeConfig('hub'), crds);
    await crdClient.create(widgetCrd);
    const ws = resourceClient<Widget>(t.kubeConfig('hub'), widgets);
    await eventually(async () => (await ws.list()).resourceVersion || undefined, 5000, 'widgets served');

    const created = await ws.create({ metadata: { name: 'w', namespace: 'alpha' }, spec: { size: 1 } });
    assert.equal(created.apiVersion, 'example.com/v1');
    assert.equal(created.metadata.generation, 1);

    const withStatus = await ws.updateStatus({ ...created, status: { ready: true } });
    assert.deepEqual(withStatus.status, { ready: true });
    assert.equal(withStatus.metadata.generation, 1, 'a status write is not a spec change');

    const resized = await ws.update({ ...withStatus, spec: { size: 2 }, status: { ready: false } });
    assert.equal(resized.metadata.generation, 2);
    assert.deepEqual(resized.status, { ready: true }, 'the main resource ignores status');

    const patched = await ws.patchMerge(
      'w',
      'alpha',
      { status: { ready: false } },
      { subresource: 'status' },
    );
    assert.deepEqual(patched.status, { ready: false });
    assert.equal(patched.spec.size, 2);

    await assert.rejects(ws.patchMerge('w', 'alpha', { spec: { size: -1 } }), (err: unknown) => {
      assert.ok(err instanceof InvalidError);
      assert.deepEqual(
        err.causes.map((cause) => cause.field),
        ['spec.size'],
      );
      return true;
    });

    assert.equal(await ws.delete('w', 'alpha'), true);
    assert.equal(await ws.get('w', 'alpha'), undefined);
  });
});
