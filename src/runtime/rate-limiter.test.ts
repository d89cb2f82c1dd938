import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from './clock.ts';
import {
  defaultControllerRateLimiter,
  ExponentialBackoff,
  MaxOfRateLimiter,
  TokenBucket,
} from './rate-limiter.ts';

describe('exponential backoff', () => {
  it('doubles from 5 ms per consecutive retry of a key', () => {
    const backoff = new ExponentialBackoff();
    assert.deepEqual(
      Array.from({ length: 6 }, () => backoff.when('a')),
      [5, 10, 20, 40, 80, 160],
    );
    assert.equal(backoff.numRequeues('a'), 6);
  });

  it('caps at 1000 s, however many retries', () => {
    const backoff = new ExponentialBackoff();
    const delays = Array.from({ length: 40 }, () => backoff.when('a'));
    // 5 ms · 2^17 = 655.36 s is the last step under the cap; 2^18 would be 1310.72 s.
    assert.equal(delays[17], 655_360);
    assert.equal(delays[18], 1_000_000);
    assert.equal(delays[39], 1_000_000);
  });

  it('starts over at 5 ms after forget', () => {
    const backoff = new ExponentialBackoff();
    backoff.when('a');
    backoff.when('a');
    backoff.forget('a');
    assert.equal(backoff.numRequeues('a'), 0);
    assert.equal(backoff.when('a'), 5);
  });

  it('keeps each key its own count', () => {
    const backoff = new ExponentialBackoff();
    backoff.when('a');
    backoff.when('a');
    assert.equal(backoff.when('b'), 5);
    assert.equal(backoff.when('a'), 20);
  });
});

describe('token bucket', () => {
  it('lets a burst of 100 through at once, then spaces the rest at 10 per second', () => {
    const bucket = new TokenBucket(new FakeClock());
    const delays = Array.from({ length: 103 }, (_, i) => bucket.when(`k${i}`));
    assert.ok(delays.slice(0, 100).every((delay) => delay === 0));
    assert.deepEqual(delays.slice(100), [100, 200, 300]);
  });

  it('refills at 10 per second, up to the burst', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(clock);
    for (let i = 0; i < 100; i++) bucket.when(`k${i}`);
    await clock.advance(500);
    const delays = Array.from({ length: 6 }, (_, i) => bucket.when(`r${i}`));
    assert.deepEqual(delays, [0, 0, 0, 0, 0, 100]);
    await clock.advance(3_600_000);
    const afterRest = Array.from({ length: 101 }, (_, i) => bucket.when(`s${i}`));
    assert.equal(afterRest.filter((delay) => delay === 0).length, 100);
  });
});

describe('default controller rate limiter', () => {
  it('answers the larger of the key backoff and the bucket delay', () => {
    const limiter = defaultControllerRateLimiter(new FakeClock());
    for (let i = 0; i < 100; i++) assert.equal(limiter.when(`k${i}`), 5);
    assert.equal(limiter.when('k0'), 100); // the bucket's 100 ms beats k0's second backoff of 10 ms
    assert.equal(limiter.numRequeues('k0'), 2);
  });

  it('forgets the key in every limiter it combines', () => {
    const backoff = new ExponentialBackoff();
    const limiter = new MaxOfRateLimiter(backoff, new TokenBucket(new FakeClock()));
    limiter.when('a');
    limiter.when('a');
    limiter.forget('a');
    assert.equal(backoff.numRequeues('a'), 0);
    assert.equal(limiter.when('a'), 5);
  });
});
