import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from './errors.ts';
import { checkDepth, MAX_JSON_DEPTH } from './limits.ts';

/** `levels` objects and arrays, alternating, each holding the next. */
function nested(levels: number): unknown {
  let value: unknown = levels % 2 === 0 ? [] : {};
  for (let level = levels - 1; level > 0; level--)
    value = level % 2 === 0 ? [1, value] : { a: 'x', b: value };
  return value;
}

describe('checkDepth', () => {
  it('accepts a body exactly MAX_JSON_DEPTH levels deep and refuses one a level deeper with 400', () => {
    checkDepth(nested(MAX_JSON_DEPTH));
    assert.throws(
      () => checkDepth(nested(MAX_JSON_DEPTH + 1)),
      (err: unknown) =>
        err instanceof ApiError && err.code === 400 && /exceeded max depth 1000/.test(err.message),
    );
  });

  it('refuses a body far deeper than the stack could walk, and scalars are no level', () => {
    assert.throws(() => checkDepth(nested(200_000)), ApiError);
    checkDepth('text');
    checkDepth(null);
    checkDepth({ a: 1, b: [null, 'x', 2] }, 2);
    assert.throws(() => checkDepth({ a: [{}] }, 2), ApiError);
  });
});
