/**
 * Time, injected: every component that waits, backs off or measures durations takes a Clock,
 * so tests run on FakeClock and never sleep for real.
 *
 * Guarantees (FakeClock): time moves only through `advance`; timers fire in order of due time,
 * ties in order of scheduling, each seeing `now()` equal to its own due time; between two timers
 * the microtask queue is drained, so promise chains a timer starts (a worker resuming after
 * `sleep`) run before the next timer fires. A timer scheduled during `advance` that falls due
 * within the advanced span fires in the same `advance`.
 * Caveat: "drained" means a bounded number of macrotask turns (setImmediate), enough for
 * promise chains, not for real I/O.
 */

export interface TimerHandle {
  readonly id: number;
}

export interface Clock {
  now(): number; // ms since the epoch
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  sleep(ms: number, signal?: AbortSignal): Promise<void>; // rejects with signal.reason on abort
}

function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // The reason is whatever the aborter gave (an Error by convention); it is passed on as is.
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

class SystemClock implements Clock {
  private nextId = 1;
  private readonly timers = new Map<number, NodeJS.Timeout>();

  now(): number {
    return Date.now();
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    const timer = setTimeout(
      () => {
        this.timers.delete(id);
        fn();
      },
      Math.max(0, ms),
    );
    this.timers.set(id, timer);
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    const timer = this.timers.get(handle.id);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(handle.id);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

export const systemClock: Clock = new SystemClock();

interface FakeTimer {
  id: number;
  due: number;
  fn: () => void;
}

/** Enough macrotask turns for promise chains started by a timer to settle. */
const SETTLE_TURNS = 10;

async function settle(): Promise<void> {
  for (let i = 0; i < SETTLE_TURNS; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export class FakeClock implements Clock {
  private current: number;
  private nextId = 1;
  private timers: FakeTimer[] = [];

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { id: this.nextId++, due: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle.id);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await settle();
    for (;;) {
      const next = this.earliestDue(target);
      if (next === undefined) break;
      this.timers = this.timers.filter((timer) => timer !== next);
      this.current = next.due;
      next.fn();
      await settle();
    }
    this.current = target;
    await settle();
  }

  /** How many timers are scheduled and not yet fired or cleared. */
  pending(): number {
    return this.timers.length;
  }

  private earliestDue(limit: number): FakeTimer | undefined {
    let earliest: FakeTimer | undefined;
    for (const timer of this.timers) {
      if (timer.due > limit) continue;
      if (
        earliest === undefined ||
        timer.due < earliest.due ||
        (timer.due === earliest.due && timer.id < earliest.id)
      )
        earliest = timer;
    }
    return earliest;
  }
}
