import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { jsonEqual } from './json-equal.ts';

/** `[1, <hole>, 3]`. */
function holed(): unknown[] {
  const array: unknown[] = [1];
  array[2] = 3;
  return array;
}

/** Pairs that differ in one of the ways isDeepStrictEqual tells apart. */
const CASES: [unknown, unknown][] = [
  [
    { a: 1, b: [1, { c: 'x' }] },
    { b: [1, { c: 'x' }], a: 1 },
  ],
  [{ a: undefined }, {}],
  [{}, { a: undefined }],
  [{ a: undefined }, { a: undefined }],
  [{ a: undefined }, { b: undefined }],
  [
    [1, 2],
    [2, 1],
  ],
  [[], {}],
  [{ a: [] }, { a: {} }],
  [0, -0],
  [NaN, NaN],
  ['1', 1],
  [null, undefined],
  [null, {}],
  [Object.create(null), {}],
  [Object.assign(Object.create(null), { a: 1 }), Object.assign(Object.create(null), { a: 1 })],
  [new Date(0), new Date(0)],
  [new Date(0), new Date(1)],
  [holed(), [1, undefined, 3]],
  [holed(), holed()],
  [JSON.parse('{"__proto__": {}}'), {}],
  [JSON.parse('{"__proto__": {"a": 1}}'), JSON.parse('{"__proto__": {"a": 1}}')],
];

describe('jsonEqual', () => {
  it('answers as isDeepStrictEqual on the cases that tell strict equality apart', () => {
    CASES.forEach(([a, b], i) => assert.equal(jsonEqual(a, b), isDeepStrictEqual(a, b), `case ${i}`));
  });

  it('answers as isDeepStrictEqual on random JSON values and on a value against its copy', () => {
    const value = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(value, value, (a, b) => jsonEqual(a, b) === isDeepStrictEqual(a, b)),
      { seed: 20261207, numRuns: 2000 },
    );
    fc.assert(
      fc.property(value, (a) => {
        const copy = structuredClone(a);
        return jsonEqual(a, copy) && jsonEqual(copy, a) && isDeepStrictEqual(a, copy);
      }),
      { seed: 20261207, numRuns: 500 },
    );
  });
});
