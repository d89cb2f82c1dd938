import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { applyMergePatch, applyOwnedMergePatch, createMergePatch } from './merge-patch.ts';

const configMap = () => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', labels: { app: 'shop', tier: 'web' }, finalizers: ['a', 'b'] },
  data: { mode: 'fast', level: '3' },
});

describe('merge patch', () => {
  it('merges maps recursively and keeps the fields the patch does not name', () => {
    const result = applyMergePatch(configMap(), {
      metadata: { labels: { env: 'prod' } },
      data: { level: '4' },
    });
    assert.deepEqual(result, {
      ...configMap(),
      metadata: {
        name: 'settings',
        labels: { app: 'shop', tier: 'web', env: 'prod' },
        finalizers: ['a', 'b'],
      },
      data: { mode: 'fast', level: '4' },
    });
  });

  it('null deletes a field, and a null for a missing field changes nothing', () => {
    const result = applyMergePatch(configMap(), {
      metadata: { labels: { tier: null, gone: null } },
      data: null,
    });
    assert.deepEqual(result, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', labels: { app: 'shop' }, finalizers: ['a', 'b'] },
    });
  });

  it('an array replaces the target array whole', () => {
    const result = applyMergePatch(configMap(), { metadata: { finalizers: ['c'] } });
    assert.deepEqual((result as ReturnType<typeof configMap>).metadata.finalizers, ['c']);
  });

  it('a map patch over a scalar builds the map, dropping its nulls', () => {
    assert.deepEqual(applyMergePatch({ spec: 'flat' }, { spec: { a: 1, b: null } }), { spec: { a: 1 } });
  });

  it('a patch that is not an object replaces the whole target', () => {
    assert.deepEqual(applyMergePatch(configMap(), ['x']), ['x']);
    assert.equal(applyMergePatch(configMap(), null), null);
  });

  it('never mutates the target or the patch, and shares no values with the patch', () => {
    const target = configMap();
    const patch = { data: { extra: { nested: [1] } } };
    const result = applyMergePatch(target, patch) as { data: { extra: { nested: number[] } } };
    result.data.extra.nested.push(2);
    assert.deepEqual(target, configMap());
    assert.deepEqual(patch, { data: { extra: { nested: [1] } } });
  });

  it('builds anew every object on a changed path and shares what the patch does not touch', () => {
    const target = {
      metadata: { name: 'a', labels: { x: '1' } },
      spec: { deep: { list: [1, 2] } },
      data: { k: 'v' },
    };
    const frozen = structuredClone(target);
    const result = applyMergePatch(target, { metadata: { labels: { y: '2' } } }) as typeof target;
    assert.deepEqual(target, frozen);
    assert.notEqual(result, target);
    assert.notEqual(result.metadata, target.metadata);
    assert.notEqual(result.metadata.labels, target.metadata.labels);
    assert.deepEqual(result.metadata.labels, { x: '1', y: '2' });
    assert.equal(result.spec, target.spec);
    assert.equal(result.data, target.data);
  });

  describe('createMergePatch', () => {
    it('names changed and added fields, nulls removed ones, and leaves unchanged ones out', () => {
      const modified = {
        ...configMap(),
        metadata: { name: 'settings', labels: { app: 'shop', env: 'prod' }, finalizers: ['a'] },
        data: { mode: 'fast', level: '3' },
      };
      assert.deepEqual(createMergePatch(configMap(), modified), {
        metadata: { labels: { tier: null, env: 'prod' }, finalizers: ['a'] },
      });
    });

    it('two equal objects give an empty patch', () => {
      assert.deepEqual(createMergePatch(configMap(), configMap()), {});
    });

    it('round-trips: applying the patch to the original gives the modified object', () => {
      const original = configMap();
      const modified = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'settings', annotations: { note: 'x' }, finalizers: [] },
        data: { mode: { nested: true }, added: ['l', 'm'] },
        binaryData: { blob: 'AAAA' },
      };
      assert.deepEqual(applyMergePatch(original, createMergePatch(original, modified)), modified);
      assert.deepEqual(applyMergePatch(modified, createMergePatch(modified, original)), original);
    });
  });
});

describe('merge patch of a handed-over patch', () => {
  it('merges as applyMergePatch does, leaving the target untouched', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 4 }), (target, patch) => {
        const targetBefore = structuredClone(target);
        const expected = applyMergePatch(target, structuredClone(patch));
        assert.deepEqual(applyOwnedMergePatch(target, patch), expected);
        assert.deepEqual(target, targetBefore);
      }),
      { numRuns: 1000, seed: 14 },
    );
  });

  it("takes the patch's own values rather than copies, and copies nothing the patch does not reach", () => {
    const conditions = [{ type: 'Ready', status: 'True' }];
    const spec = { network: 'net' };
    const result = applyOwnedMergePatch(
      { spec, status: { phase: 'Pending' } },
      { status: { conditions } },
    ) as { spec: unknown; status: { conditions: unknown; phase: string } };
    assert.equal(result.status.conditions, conditions);
    assert.equal(result.spec, spec);
    assert.equal(result.status.phase, 'Pending');
    const copied = applyMergePatch({}, { status: { conditions } }) as { status: { conditions: unknown } };
    assert.notEqual(copied.status.conditions, conditions);
  });
});
