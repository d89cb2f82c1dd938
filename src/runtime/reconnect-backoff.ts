/**
 * Reconnect backoff: how long a reflector waits before it lists or watches again after a
 * failure — exponential, jittered, capped, and reset once a connection has been healthy.
 *
 * Guarantees: the n-th consecutive delay lies in [base/2, base] where base = min(maxMs,
 * initialMs × 2ⁿ), so many reflectors failing together spread out instead of reconnecting in
 * step ("equal jitter"); `reset` starts the sequence over.
 *
 * Worked example (100 ms → 30 s): 50–100 ms, 100–200 ms, 200–400 ms, … 15–30 s, 15–30 s, …
 */

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** A connection that lasted this long was healthy: the next failure starts over at initialMs. */
  resetAfterMs: number;
}

export const DEFAULT_RECONNECT_BACKOFF: BackoffPolicy = {
  initialMs: 100,
  maxMs: 30_000,
  resetAfterMs: 60_000,
};

export class ReconnectBackoff {
  private failures = 0;

  constructor(
    readonly policy: BackoffPolicy = DEFAULT_RECONNECT_BACKOFF,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next attempt; counts one more consecutive failure. */
  next(): number {
    const base = Math.min(this.policy.maxMs, this.policy.initialMs * 2 ** Math.min(this.failures, 52));
    this.failures++;
    return base / 2 + (this.random() * base) / 2;
  }

  reset(): void {
    this.failures = 0;
  }
}
