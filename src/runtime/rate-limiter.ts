/**
 * How long a key waits before its next retry: per-key exponential backoff combined with one
 * token bucket shared by every key, exactly as controller-runtime's default controller rate
 * limiter (client-go `DefaultControllerRateLimiter`).
 *
 * Guarantees: the n-th consecutive `when(key)` (n from 0) of the backoff returns 5 ms · 2ⁿ,
 * capped at 1000 s, until `forget(key)` starts it over. The bucket holds 100 tokens and refills
 * at 10 per second; every `when` takes one, and once it is empty the delay is the time until the
 * taken token will have refilled, so a burst of retries beyond 100 is spread at 10/s. The
 * combined limiter answers the larger of the two delays.
 * Assumes: the caller retries after the delay it was given; the bucket counts tokens it has
 * promised, not retries that actually happened (as golang.org/x/time/rate's `Reserve`).
 */
import type { Clock } from './clock.ts';

export interface RateLimiter {
  /** Delay in ms before `key` may be retried; counts one more retry of it. */
  when(key: string): number;
  /** Clears the key's retry history (after a success). */
  forget(key: string): void;
  /** How many times `key` has been retried since it was last forgotten. */
  numRequeues(key: string): number;
}

export const BACKOFF_BASE_MS = 5;
export const BACKOFF_MAX_MS = 1000 * 1000;
export const BUCKET_PER_SECOND = 10;
export const BUCKET_BURST = 100;

/** Per key: base · 2^failures, capped. */
export class ExponentialBackoff implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly baseMs = BACKOFF_BASE_MS,
    private readonly maxMs = BACKOFF_MAX_MS,
  ) {}

  when(key: string): number {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    return Math.min(this.baseMs * 2 ** failures, this.maxMs);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** One bucket for all keys: `burst` tokens, refilled at `perSecond`. */
export class TokenBucket implements RateLimiter {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly clock: Clock,
    private readonly perSecond = BUCKET_PER_SECOND,
    private readonly burst = BUCKET_BURST,
  ) {
    this.tokens = burst;
    this.updatedAt = clock.now();
  }

  when(_key: string): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.updatedAt) * this.perSecond) / 1000);
    this.updatedAt = now;
    this.tokens -= 1;
    // A negative balance is a queue of promised tokens; this one is ready when it is refilled.
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.perSecond;
  }

  forget(_key: string): void {}

  numRequeues(_key: string): number {
    return 0;
  }
}

/** The largest delay of several limiters; each of them counts every retry. */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    return Math.max(0, ...this.limiters.map((limiter) => limiter.when(key)));
  }

  forget(key: string): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  numRequeues(key: string): number {
    return Math.max(0, ...this.limiters.map((limiter) => limiter.numRequeues(key)));
  }
}

/** controller-runtime's default: backoff 5 ms–1000 s per key under a 10/s, burst-100 bucket. */
export function defaultControllerRateLimiter(clock: Clock): RateLimiter {
  return new MaxOfRateLimiter(new ExponentialBackoff(), new TokenBucket(clock));
}
