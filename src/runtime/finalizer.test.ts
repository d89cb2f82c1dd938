import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../test/support/apiserver.ts';
import { ConflictError, InvalidError, isConflict } from '../client/errors.ts';
import { resourceClient } from '../client/resource-client.ts';
import type { JsonPatchOperation, KubeObject, ResourceClient, ResourceId } from '../client/types.ts';
import { ensureFinalizer, hasFinalizer, removeFinalizer } from './finalizer.ts';

const configMaps: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
const namespaces: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
};

const MINE = 'networking.datumapis.com/presence';
const THEIRS = 'example.com/other';

/**
 * One stored object behind the ResourceClient contract, with just the JSON patch the helper
 * sends: `test`, `add` and `remove` of a /metadata field, failing a test as the server does (422).
 */
class FakeClient implements Pick<ResourceClient, 'id' | 'patchJson'> {
  readonly id = configMaps;
  readonly patches: JsonPatchOperation[][] = [];

  constructor(public stored: KubeObject) {}

  async patchJson(
    name: string,
    namespace: string | undefined,
    operations: JsonPatchOperation[],
  ): Promise<KubeObject> {
    assert.equal(name, this.stored.metadata.name);
    assert.equal(namespace, this.stored.metadata.namespace);
    this.patches.push(operations);
    const metadata: Record<string, unknown> = structuredClone(this.stored.metadata);
    for (const operation of operations) {
      const field = operation.path.replace(/^\/metadata\//, '');
      switch (operation.op) {
        case 'test':
          // `null` matches an absent field, as the server's JSON patch has it.
          if (JSON.stringify(metadata[field] ?? null) !== JSON.stringify(operation.value)) {
            throw new InvalidError(422, {
              reason: 'Invalid',
              message: `testing value ${operation.path} failed: test operation failed`,
            });
          }
          break;
        case 'add':
          metadata[field] = operation.value;
          break;
        case 'remove':
          delete metadata[field];
          break;
        default:
          throw new Error(`the fake does not do ${operation.op}`);
      }
    }
    const resourceVersion = String(Number(this.stored.metadata.resourceVersion) + 1);
    this.stored = { ...this.stored, metadata: { ...metadata, resourceVersion } };
    return this.stored;
  }

  asClient(): ResourceClient {
    return this as unknown as ResourceClient;
  }
}

function configMap(finalizers?: string[], resourceVersion = '7'): KubeObject {
  return {
    metadata: { name: 'cm', namespace: 'ns', resourceVersion, ...(finalizers ? { finalizers } : {}) },
  };
}

describe('finalizer helper', () => {
  it('adds the finalizer to an object without any, guarded by a test that the list is still absent', async () => {
    const fake = new FakeClient(configMap());
    const updated = await ensureFinalizer(fake.asClient(), configMap(), MINE);
    assert.deepEqual(updated.metadata.finalizers, [MINE]);
    assert.deepEqual(fake.patches, [
      [
        { op: 'test', path: '/metadata/finalizers', value: null },
        { op: 'add', path: '/metadata/finalizers', value: [MINE] },
      ],
    ]);
  });

  it('appends to existing finalizers, guarded by the list it saw', async () => {
    const fake = new FakeClient(configMap([THEIRS]));
    const updated = await ensureFinalizer(fake.asClient(), configMap([THEIRS]), MINE);
    assert.deepEqual(updated.metadata.finalizers, [THEIRS, MINE]);
    assert.deepEqual(fake.patches[0][0], { op: 'test', path: '/metadata/finalizers', value: [THEIRS] });
  });

  it('makes no request when the finalizer is already there, or already gone', async () => {
    const fake = new FakeClient(configMap([MINE]));
    const present = configMap([MINE]);
    assert.equal(await ensureFinalizer(fake.asClient(), present, MINE), present);
    const absent = configMap([THEIRS]);
    assert.equal(await removeFinalizer(fake.asClient(), absent, MINE), absent);
    assert.deepEqual(fake.patches, []);
  });

  it('removes only its own finalizer, and the field when it was the last', async () => {
    const fake = new FakeClient(configMap([THEIRS, MINE]));
    const updated = await removeFinalizer(fake.asClient(), configMap([THEIRS, MINE]), MINE);
    assert.deepEqual(updated.metadata.finalizers, [THEIRS]);
    const alone = new FakeClient(configMap([MINE]));
    const last = await removeFinalizer(alone.asClient(), configMap([MINE]), MINE);
    assert.equal(hasFinalizer(last, MINE), false);
    assert.equal(last.metadata.finalizers, undefined);
    assert.deepEqual(alone.patches[0][1], { op: 'remove', path: '/metadata/finalizers' });
  });

  it('throws ConflictError, leaving the object as it was, when the finalizers changed since it was read', async () => {
    const fake = new FakeClient(configMap([THEIRS, 'example.com/late']));
    await assert.rejects(ensureFinalizer(fake.asClient(), configMap([THEIRS]), MINE), ConflictError);
    await assert.rejects(removeFinalizer(fake.asClient(), configMap([THEIRS, MINE]), MINE), ConflictError);
    assert.deepEqual(fake.stored.metadata.finalizers, [THEIRS, 'example.com/late']);
  });

  it('throws ConflictError when an object read without finalizers has gained one since', async () => {
    const fake = new FakeClient(configMap([THEIRS], '9'));
    await assert.rejects(ensureFinalizer(fake.asClient(), configMap(undefined, '7'), MINE), ConflictError);
    assert.deepEqual(fake.stored.metadata.finalizers, [THEIRS]);
  });

  it('throws ConflictError when the object was replaced since it was read, though its finalizers match', async () => {
    const read: KubeObject = { metadata: { ...configMap([MINE]).metadata, uid: 'old' } };
    const fake = new FakeClient({ metadata: { ...configMap([MINE], '9').metadata, uid: 'new' } });
    await assert.rejects(removeFinalizer(fake.asClient(), read, MINE), ConflictError);
    assert.deepEqual(fake.stored.metadata.finalizers, [MINE]);
    assert.deepEqual(fake.patches[0][0], { op: 'test', path: '/metadata/uid', value: 'old' });
  });

  it('passes other refusals through as they are', async () => {
    const refusal = new InvalidError(422, {
      reason: 'Invalid',
      message: 'metadata.finalizers[0]: Invalid value',
    });
    const client = {
      id: configMaps,
      patchJson: () => Promise.reject(refusal),
    } as unknown as ResourceClient;
    await assert.rejects(ensureFinalizer(client, configMap(), 'bad name'), (err) => err === refusal);
  });
});

describe('finalizer helper against the embedded API server', () => {
  let t: TestServer;
  let cms: ResourceClient;

  before(async () => {
    t = await startTestServer(['hub']);
    await resourceClient(t.kubeConfig('hub'), namespaces).create({ metadata: { name: 'fin' } });
    cms = resourceClient(t.kubeConfig('hub'), configMaps);
  });
  after(async () => t.stop());

  it('adds and removes a finalizer, keeping another writer’s', async () => {
    const created = await cms.create({ metadata: { name: 'both', namespace: 'fin', finalizers: [THEIRS] } });
    const held = await ensureFinalizer(cms, created, MINE);
    assert.deepEqual(held.metadata.finalizers, [THEIRS, MINE]);
    assert.equal(await ensureFinalizer(cms, held, MINE), held);
    const released = await removeFinalizer(cms, held, MINE);
    assert.deepEqual(released.metadata.finalizers, [THEIRS]);
    const cleared = await removeFinalizer(cms, released, THEIRS);
    assert.equal(cleared.metadata.finalizers?.length ?? 0, 0);
  });

  it('refuses with ConflictError when another writer added a finalizer since the object was read', async () => {
    const stale = await cms.create({ metadata: { name: 'raced', namespace: 'fin' } });
    await cms.patchMerge('raced', 'fin', { metadata: { finalizers: [THEIRS] } });
    await assert.rejects(ensureFinalizer(cms, stale, MINE), isConflict);
    const current = await cms.get('raced', 'fin');
    assert.deepEqual(current?.metadata.finalizers, [THEIRS]);

    const withMine = await ensureFinalizer(cms, current, MINE);
    await cms.patchJson('raced', 'fin', [
      { op: 'add', path: '/metadata/finalizers/-', value: 'example.com/late' },
    ]);
    await assert.rejects(removeFinalizer(cms, withMine, MINE), isConflict);
    assert.deepEqual((await cms.get('raced', 'fin'))?.metadata.finalizers, [
      THEIRS,
      MINE,
      'example.com/late',
    ]);
  });

  it('refuses with ConflictError to release an object deleted and created again under its name since the read', async () => {
    // A Work deleted, released and rebuilt by its binding at once: the new one is created with the
    // same finalizer, and a release computed from the old one must not take it off the new one.
    const old = await cms.create({ metadata: { name: 'reborn', namespace: 'fin', finalizers: [MINE] } });
    await cms.delete('reborn', 'fin');
    await removeFinalizer(cms, (await cms.get('reborn', 'fin'))!, MINE);
    const reborn = await cms.create({ metadata: { name: 'reborn', namespace: 'fin', finalizers: [MINE] } });
    assert.notEqual(reborn.metadata.uid, old.metadata.uid);
    await assert.rejects(removeFinalizer(cms, old, MINE), isConflict);
    assert.deepEqual((await cms.get('reborn', 'fin'))?.metadata.finalizers, [MINE]);
  });

  it('adds the first finalizer although a status or label write came in since the object was read', async () => {
    // A new object is written by two controllers at once: one adds its finalizer, the other its
    // status. Guarded by the resourceVersion, the finalizer lost every such race (a 409, a
    // re-read, a second patch) on the path of every new NetworkContext.
    const read = await cms.create({ metadata: { name: 'fresh', namespace: 'fin' } });
    await cms.patchMerge('fresh', 'fin', { metadata: { labels: { touched: 'yes' } } });
    const held = await ensureFinalizer(cms, read, MINE);
    assert.deepEqual(held.metadata.finalizers, [MINE]);
    assert.equal(held.metadata.labels?.touched, 'yes');
  });

  it('is not stopped by a change to another field since the object was read', async () => {
    const read = await cms.create({
      metadata: { name: 'relabelled', namespace: 'fin', finalizers: [THEIRS] },
    });
    await cms.patchMerge('relabelled', 'fin', { metadata: { labels: { touched: 'yes' } } });
    const held = await ensureFinalizer(cms, read, MINE);
    assert.deepEqual(held.metadata.finalizers, [THEIRS, MINE]);
    assert.equal(held.metadata.labels?.touched, 'yes');
  });
});
