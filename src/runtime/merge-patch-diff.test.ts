import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergePatchBetween, sameValue } from './merge-patch-diff.ts';

describe('merge patch between two values', () => {
  it('sets what changed and nulls what went, recursively', () => {
    assert.deepEqual(mergePatchBetween({ a: 1, b: { c: 2, d: 3 } }, { a: 1, b: { c: 4 } }), {
      b: { c: 4, d: null },
    });
  });

  it('is undefined for equal values, whatever the key order', () => {
    assert.equal(
      mergePatchBetween({ a: [1, 2], b: { c: 'x', d: 'y' } }, { b: { d: 'y', c: 'x' }, a: [1, 2] }),
      undefined,
    );
  });

  it('replaces arrays whole and adds new keys', () => {
    assert.deepEqual(mergePatchBetween({ list: [1, 2] }, { list: [2], extra: { x: 1 } }), {
      list: [2],
      extra: { x: 1 },
    });
  });

  it('replaces a scalar by an object and an absent value by the target', () => {
    assert.deepEqual(mergePatchBetween(undefined, { a: 1 }), { a: 1 });
    assert.deepEqual(mergePatchBetween({ a: 'x' }, { a: { b: 1 } }), { a: { b: 1 } });
  });

  it('compares JSON values deeply', () => {
    assert.ok(sameValue({ a: [{ b: 1 }] }, { a: [{ b: 1 }] }));
    assert.ok(!sameValue({ a: [1] }, { a: [1, 2] }));
    assert.ok(sameValue({ a: 1, b: undefined }, { a: 1 }));
  });
});
