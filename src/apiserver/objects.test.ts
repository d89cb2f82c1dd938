import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clone, deepEqual, nowRfc3339, sameSpec } from './objects.ts';

describe('nowRfc3339', () => {
  it('formats each instant to its second, also when seconds repeat, go back or cross a day', () => {
    const instants = [
      '2026-12-03T16:53:41.001Z',
      '2026-12-03T16:53:41.999Z',
      '2026-12-03T16:53:42.000Z',
      '2026-12-03T16:53:41.500Z',
      '2026-12-03T23:59:59.999Z',
      '2026-12-04T00:00:00.000Z',
      '1969-12-31T23:59:59.500Z',
    ];
    for (const instant of instants) {
      assert.equal(nowRfc3339(new Date(instant)), `${instant.slice(0, 19)}Z`);
    }
  });

  it('refuses an invalid date', () => {
    assert.throws(() => nowRfc3339(new Date(NaN)), RangeError);
  });
});

describe('clone', () => {
  it('copies a JSON value deeply: the copy is equal and shares no object or array with it', () => {
    const value = JSON.parse(
      '{"spec":{"mtu":1460,"families":["IPv4","IPv6"],"on":true,"none":null},"status":{"conditions":[{"type":"Ready"}]}}',
    ) as { spec: { families: string[] }; status: { conditions: object[] } };
    const copy = clone(value);
    assert.deepEqual(copy, value);
    assert.notEqual(copy.spec, value.spec);
    assert.notEqual(copy.spec.families, value.spec.families);
    assert.notEqual(copy.status.conditions[0], value.status.conditions[0]);
    copy.spec.families.push('x');
    assert.deepEqual(value.spec.families, ['IPv4', 'IPv6']);
  });

  it('keeps an own __proto__ key as a key, never as the copy’s prototype', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const copy = clone(value);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.keys(copy), ['__proto__', 'a']);
    assert.equal(JSON.stringify(copy), '{"__proto__":{"polluted":true},"a":1}');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('leaves values other than arrays and plain objects to structuredClone', () => {
    const when = new Date('2026-12-07T00:00:00Z');
    const copy = clone({ when });
    assert.ok(copy.when instanceof Date);
    assert.notEqual(copy.when, when);
    assert.equal(copy.when.getTime(), when.getTime());
  });
});

describe('deepEqual', () => {
  it('compares JSON values structurally: key order ignored, array order kept, undefined as absent', () => {
    assert.equal(deepEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }), true);
    assert.equal(deepEqual({ a: 1, u: undefined }, { a: 1 }), true);
    assert.equal(deepEqual({ a: 1 }, { a: 1, u: undefined }), true);
    assert.equal(deepEqual([1, 2], [2, 1]), false);
    assert.equal(deepEqual({ a: 1 }, { a: 1, b: null }), false);
    assert.equal(deepEqual({ a: 1, b: 2 }, { a: 1, c: 2 }), false);
    assert.equal(deepEqual({ a: [] }, { a: {} }), false);
    assert.equal(deepEqual(0, -0), true);
    assert.equal(deepEqual('1', 1), false);
  });

  it('reads an own __proto__ key as a key: it never matches the other object’s prototype', () => {
    const own = JSON.parse('{"__proto__": {}}') as Record<string, unknown>;
    assert.equal(deepEqual(own, {}), false);
    assert.equal(deepEqual({}, own), false);
    assert.equal(deepEqual(own, JSON.parse('{"__proto__": {}}')), true);
    // As many keys, and the other's `__proto__` is its prototype, which has no keys either.
    assert.equal(deepEqual(own, { x: {} }), false);
  });
});

describe('sameSpec', () => {
  const object = (spec: unknown, status: unknown, name = 'a') => ({
    apiVersion: 'v1',
    kind: 'Thing',
    metadata: { name },
    spec,
    status,
  });

  it('compares everything but metadata, apiVersion and kind, and status when it is a subresource', () => {
    assert.equal(sameSpec(object({ a: 1 }, { s: 1 }), object({ a: 1 }, { s: 2 }, 'b'), true), true);
    assert.equal(sameSpec(object({ a: 1 }, { s: 1 }), object({ a: 1 }, { s: 2 }), false), false);
    assert.equal(sameSpec(object({ a: 1 }, undefined), object({ a: 2 }, undefined), true), false);
    assert.equal(sameSpec({ ...object({}, {}), data: { x: '1' } }, object({}, {}), true), false);
    assert.equal(sameSpec({ ...object({}, {}), data: undefined }, object({}, {}), true), true);
  });
});
