import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, notFound } from './errors.ts';

describe('ApiError', () => {
  it('a refusal carries no stack frames, a server error keeps them, and neither changes the limit', () => {
    const limit = Error.stackTraceLimit;
    const refusal = notFound({ group: '', resource: 'configmaps' }, 'gone');
    assert.equal(refusal.stack, 'ApiError: configmaps "gone" not found');
    assert.deepEqual(refusal.toStatus(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "gone" not found',
      reason: 'NotFound',
      code: 404,
      details: { name: 'gone', group: '', kind: 'configmaps' },
    });
    const failure = new ApiError(500, 'InternalError', 'broken');
    assert.match(failure.stack ?? '', /\n\s+at /);
    assert.equal(Error.stackTraceLimit, limit);
  });
});
