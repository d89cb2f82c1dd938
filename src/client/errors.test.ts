import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AlreadyExistsError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidError,
  isConflict,
  isGone,
  isNotFound,
  NotFoundError,
  StatusError,
  statusErrorFrom,
  UnauthorizedError,
} from './errors.ts';

const status = (code: number, reason: string, message = `${reason} happened`) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  code,
});

describe('status errors', () => {
  it('classifies each known reason into its own error type', () => {
    const cases: [number, string, new (...args: any[]) => StatusError][] = [
      [404, 'NotFound', NotFoundError],
      [409, 'AlreadyExists', AlreadyExistsError],
      [409, 'Conflict', ConflictError],
      [422, 'Invalid', InvalidError],
      [410, 'Expired', GoneError],
      [410, 'Gone', GoneError],
      [403, 'Forbidden', ForbiddenError],
      [401, 'Unauthorized', UnauthorizedError],
      [400, 'BadRequest', BadRequestError],
    ];
    for (const [code, reason, type] of cases) {
      const err = statusErrorFrom(code, status(code, reason));
      assert.ok(err instanceof type, `${reason} → ${type.name}`);
      assert.equal(err.name, type.name);
      assert.equal(err.code, code);
      assert.equal(err.reason, reason);
      assert.equal(err.message, `${reason} happened`);
    }
  });

  it('tells a taken name from a stale write although both are 409', () => {
    assert.ok(!isConflict(statusErrorFrom(409, status(409, 'AlreadyExists'))));
    assert.ok(isConflict(statusErrorFrom(409, status(409, 'Conflict'))));
  });

  it('falls back to the HTTP code when the reason is absent or unknown', () => {
    assert.ok(isNotFound(statusErrorFrom(404, undefined)));
    assert.ok(isGone(statusErrorFrom(410, status(410, 'SomethingNew'))));
    assert.ok(isConflict(statusErrorFrom(409, {})));
  });

  it('keeps an unclassified refusal as a plain StatusError with its code', () => {
    const err = statusErrorFrom(500, status(500, 'InternalError', 'etcd is down'));
    assert.equal(err.constructor, StatusError);
    assert.equal(err.code, 500);
    assert.equal(err.message, 'etcd is down');
  });

  it('carries the causes of an Invalid refusal and the whole Status body', () => {
    const body = {
      ...status(422, 'Invalid', 'Widget.example.com "w" is invalid: spec.size: Invalid value: -1'),
      details: {
        name: 'w',
        kind: 'Widget',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: -1', field: 'spec.size' }],
      },
    };
    const err = statusErrorFrom(422, body);
    assert.ok(err instanceof InvalidError);
    assert.deepEqual(err.causes, [
      { reason: 'FieldValueInvalid', message: 'Invalid value: -1', field: 'spec.size' },
    ]);
    assert.equal(err.status, body);
  });

  it('words a refusal without a Status by its text, or else by its HTTP code', () => {
    assert.equal(statusErrorFrom(502, 'upstream connect error\n').message, 'upstream connect error');
    assert.equal(statusErrorFrom(503, undefined).message, '503 Service Unavailable');
    assert.deepEqual(statusErrorFrom(503, undefined).causes, []);
  });
});
