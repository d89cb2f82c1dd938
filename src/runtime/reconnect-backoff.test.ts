import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReconnectBackoff } from './reconnect-backoff.ts';

describe('ReconnectBackoff', () => {
  const policy = { initialMs: 100, maxMs: 1000, resetAfterMs: 60_000 };

  it('doubles each consecutive delay up to the cap', () => {
    const backoff = new ReconnectBackoff(policy, () => 1);
    assert.deepEqual(
      Array.from({ length: 6 }, () => backoff.next()),
      [100, 200, 400, 800, 1000, 1000],
    );
  });

  it('jitters each delay within the upper half of its step', () => {
    const low = new ReconnectBackoff(policy, () => 0);
    assert.deepEqual([low.next(), low.next(), low.next()], [50, 100, 200]);
    const mid = new ReconnectBackoff(policy, () => 0.5);
    assert.equal(mid.next(), 75);
  });

  it('starts over after reset', () => {
    const backoff = new ReconnectBackoff(policy, () => 1);
    backoff.next();
    backoff.next();
    backoff.reset();
    assert.equal(backoff.next(), 100);
  });
});
