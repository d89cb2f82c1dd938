import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statusErrorFrom } from './errors.ts';
import { retryOnConflict } from './retry.ts';

const conflict = () => statusErrorFrom(409, { reason: 'Conflict', message: 'the object has been modified' });

describe('retryOnConflict', () => {
  it('runs the write again after a conflict and returns its result', async () => {
    let runs = 0;
    const result = await retryOnConflict(async () => {
      runs++;
      if (runs < 3) throw conflict();
      return 'written';
    });
    assert.equal(result, 'written');
    assert.equal(runs, 3);
  });

  it('gives up after the given attempts and throws the last conflict', async () => {
    let runs = 0;
    await assert.rejects(
      retryOnConflict(async () => {
        runs++;
        throw conflict();
      }, 4),
      { name: 'ConflictError' },
    );
    assert.equal(runs, 4);
  });

  it('never retries any other error', async () => {
    let runs = 0;
    await assert.rejects(
      retryOnConflict(async () => {
        runs++;
        throw statusErrorFrom(409, { reason: 'AlreadyExists', message: 'taken' });
      }),
      { name: 'AlreadyExistsError' },
    );
    assert.equal(runs, 1);
  });
});
