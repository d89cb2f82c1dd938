/**
 * The queue between triggers and a controller's workers: string keys, each standing for "this
 * object needs reconciling", as client-go's rate-limiting workqueue.
 *
 * Guarantees:
 * - dedup: a key is in the queue at most once; adding a queued key again changes nothing.
 * - one worker per key: `get` never hands out a key that is being processed (between `get` and
 *   `done`); a key added meanwhile is queued again by `done`, so the change is not lost.
 * - one schedule per key, the earliest winning: a key is either ready (queued, or marked to be
 *   queued at `done`) or waiting until one time. `addAfter` to a later time than the key's
 *   schedule, or to a ready key, changes nothing; to an earlier time, it moves the schedule;
 *   `add` makes a waiting key ready now.
 * - `get` resolves in FIFO order of waiting callers, each with the oldest ready key.
 * - `shutdown` resolves every waiting and later `get` with undefined and cancels every schedule;
 *   ready keys are dropped (controllers are level-triggered: the next start lists everything).
 * Worked example: add(a) → get()=a → add(a) (a is processing: marked, not queued) → get() waits
 * → done(a) (a is queued again) → the waiting get() resolves with a.
 */
import type { Clock, TimerHandle } from './clock.ts';
import type { RuntimeMetrics } from './metrics.ts';
import { Fifo } from './fifo.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

export interface WorkQueueOptions {
  /** The `name` label of the workqueue metrics; a controller's queue takes its name. */
  name: string;
  clock: Clock;
  /** Default: controller-runtime's (5 ms–1000 s per key under 10/s burst 100). */
  rateLimiter?: RateLimiter;
  metrics?: RuntimeMetrics;
}

interface Schedule {
  at: number;
  timer: TimerHandle;
}

export class WorkQueue {
  readonly name: string;
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter;
  private readonly metrics?: RuntimeMetrics;

  /** Ready keys in order, each also in `dirty` (a Fifo: a burst queues more keys than an array shifts cheaply). */
  private readonly queue = new Fifo<string>();
  /** Keys that need processing: queued, or to be queued when their processing is done. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly scheduled = new Map<string, Schedule>();
  /** When each queued key was queued, for the queue-duration metric. */
  private readonly queuedAt = new Map<string, number>();
  private readonly waiters = new Fifo<(key: string | undefined) => void>();
  private stopped = false;

  constructor(options: WorkQueueOptions) {
    this.name = options.name;
    this.clock = options.clock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter(options.clock);
    this.metrics = options.metrics;
  }

  /** Marks `key` ready now. */
  add(key: string): void {
    if (this.stopped) return;
    this.unschedule(key);
    if (this.dirty.has(key)) return;
    this.metrics?.workqueueAdds.inc({ name: this.name });
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  /** Marks `key` ready after `ms`, unless it is ready or scheduled sooner already. */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    if (this.dirty.has(key)) return;
    const at = this.clock.now() + ms;
    const current = this.scheduled.get(key);
    if (current && current.at <= at) return;
    this.unschedule(key);
    const timer = this.clock.setTimeout(() => {
      this.scheduled.delete(key);
      this.add(key);
    }, ms);
    this.scheduled.set(key, { at, timer });
  }

  /** Schedules a retry of `key` after the rate limiter's delay. */
  addRateLimited(key: string): void {
    if (this.stopped) return;
    this.metrics?.workqueueRetries.inc({ name: this.name });
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Resets `key`'s backoff; its schedule, if any, stands. */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  /** The next ready key, now marked as processing; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    if (this.queue.length > 0) return Promise.resolve(this.take());
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends the processing of `key`; queues it again if it was added meanwhile. */
  done(key: string): void {
    if (!this.processing.delete(key)) return;
    if (this.dirty.has(key) && !this.stopped) this.enqueue(key);
  }

  shutdown(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const key of [...this.scheduled.keys()]) this.unschedule(key);
    this.queue.clear();
    this.dirty.clear();
    this.queuedAt.clear();
    this.metrics?.workqueueDepth.set({ name: this.name }, 0);
    for (let waiter = this.waiters.shift(); waiter; waiter = this.waiters.shift()) waiter(undefined);
  }

  get shuttingDown(): boolean {
    return this.stopped;
  }

  /** How many keys are ready and not yet handed out. */
  len(): number {
    return this.queue.length;
  }

  /** How many keys wait for a scheduled time. */
  waiting(): number {
    return this.scheduled.size;
  }

  private enqueue(key: string): void {
    this.queue.push(key);
    this.queuedAt.set(key, this.clock.now());
    this.metrics?.workqueueDepth.inc({ name: this.name });
    const waiter = this.waiters.shift();
    if (waiter) waiter(this.take());
  }

  private take(): string {
    const key = this.queue.shift()!;
    this.dirty.delete(key);
    this.processing.add(key);
    this.metrics?.workqueueDepth.dec({ name: this.name });
    const queuedAt = this.queuedAt.get(key);
    this.queuedAt.delete(key);
    if (queuedAt !== undefined) {
      this.metrics?.workqueueQueueDuration.observe({ name: this.name }, (this.clock.now() - queuedAt) / 1000);
    }
    return key;
  }

  private unschedule(key: string): void {
    const schedule = this.scheduled.get(key);
    if (!schedule) return;
    this.clock.clearTimeout(schedule.timer);
    this.scheduled.delete(key);
  }
}
