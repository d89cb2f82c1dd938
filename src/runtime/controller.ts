/**
 * A controller: triggers turn events into typed keys, a workqueue holds them, and workers call
 * `reconcile(key)` — level-triggered, reading current state, never told what changed.
 *
 * Guarantees: one key is never reconciled by two workers at once; a key enqueued while it is
 * being reconciled is reconciled again afterwards. A reconcile says what it wants next as an
 * `Outcome` (returning nothing is `done`; a thrown error is `failed`, or `stale` when it is a
 * 409 Conflict or a 404 NotFound — a write computed from a copy that is no longer current). What
 * follows is decided in one place, the switch of `afterReconcile`, by this table:
 *
 * | outcome  | next                                                        | logged             | reconcile_total{result} |
 * |----------|-------------------------------------------------------------|--------------------|-------------------------|
 * | done     | nothing; backoff forgotten                                  | debug              | success                 |
 * | requeue  | the key again at once; backoff forgotten                    | debug              | requeue                 |
 * | after    | the key again after `ms` (sooner if enqueued); backoff forgotten | debug         | requeue_after           |
 * | stale    | nothing; backoff forgotten: the watch event of the newer state re-queues the key | debug | stale     |
 * | failed   | the key again after its backoff (5 ms doubling to 1000 s per key, 10/s burst 100 overall); an AlreadyExists is logged at debug | error, with the key | error |
 * | failed with a TerminalError | nothing until the key is enqueued again; backoff forgotten | error | error (+ terminal_reconcile_errors_total) |
 *
 * A controller that wants another policy for a stale write says so in its options, `onStale`:
 *
 * | onStale  | a stale write is followed by                                            | for a controller…                                  |
 * |----------|-------------------------------------------------------------------------|----------------------------------------------------|
 * | 'watch'  | (the default) the row above                                              | whose watches report what it lost to               |
 * | 'requeue'| the key again at once, from the store                                   | whose own writes wake none of its keys             |
 * | 'backoff'| the key again after its backoff, as `failed`                            | some of whose writes no watch of its own reports   |
 * | 'reread' | the reconcile again at once, told `fresh` (read what it writes from the server, not the store), up to FRESH_READ_ATTEMPTS passes in all; then as 'backoff' | whose store lags the write it lost to, or whose watch filters that write's event out |
 *
 * Nothing else changes the tables; a reconciler never calls the queue itself. The passes of one
 * `reread` count as one reconcile.
 * Every reconcile counts in controller_runtime_reconcile_total{result} and its time in
 * controller_runtime_reconcile_time_seconds, and logs with controller, plane and key — as do
 * the lines the reconciler writes through the logger it is given.
 * Assumes: `toString` and `fromString` are inverse and `toString` is injective, so equal keys
 * dedup; `start` is called after the informers behind the triggers are synced.
 * Caveat: keys enqueued before `start` wait in the queue; `stop` drops keys not yet started.
 */
import { asAgent } from '../client/user-agent.ts';
import { isAlreadyExists, isConflict, isNotFound } from '../client/errors.ts';
import type { Clock } from './clock.ts';
import { controllerLogger, reconcileLogger, type Logger } from './logging.ts';
import { processMetrics, type ReconcileResult, type RuntimeMetrics } from './metrics.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { Trigger } from './triggers.ts';
import { WorkQueue } from './workqueue.ts';

/** A failure retrying cannot fix (an invalid spec, say): logged, counted, not retried. */
export class TerminalError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** What a reconcile asks for next (the table of the module comment says what follows). */
export type Outcome =
  | { kind: 'done' }
  | { kind: 'requeue' }
  | { kind: 'after'; ms: number }
  | { kind: 'stale' }
  | { kind: 'failed'; error: unknown };

export const done = (): Outcome => ({ kind: 'done' });
/** Reconcile the key again at once (a create lost a race to an object no watch of ours sees yet). */
export const requeue = (): Outcome => ({ kind: 'requeue' });
/** Reconcile the key again after `ms`, for a condition no watch reports; `ms <= 0` is done. */
export const after = (ms: number): Outcome => (ms > 0 ? { kind: 'after', ms } : { kind: 'done' });
/** A write lost a race; the newer state's watch event re-queues the key. */
export const stale = (): Outcome => ({ kind: 'stale' });

/**
 * Workers for a controller whose reconciles wait on API round trips, not on CPU: a reconcile
 * spends most of its time awaiting the server, so its workers bound how many keys are in flight,
 * not how much CPU is used. With four, a 1,000-binding burst kept networkcontext keys queued 33 s
 * on average behind reconciles of 158 ms while both cores idled half the time (bench/README.md,
 * session 9). The hub, project and engine controllers use it; a cell's controllers keep their few
 * workers per cell (a fleet runs one set per cell, and a faster interface write-back only copies
 * an interface more often while it is still being built).
 */
export const ROUND_TRIP_WORKERS = 32;

/**
 * What follows a stale write: wait for the watch (the default), reconcile again at once, after
 * the backoff, or re-read from the server and reconcile again at once (the module's table).
 */
export type StalePolicy = 'watch' | 'requeue' | 'backoff' | 'reread';

/** How many passes one reconcile makes under `onStale: 'reread'` (the first from the store). */
export const FRESH_READ_ATTEMPTS = 3;

/** What a reconcile is told about its pass. */
export interface ReconcilePass {
  /**
   * An earlier pass of this reconcile lost a race (`onStale: 'reread'`): the store's copy is
   * older than the server's, so read what you write from the server.
   */
  fresh: boolean;
}

export interface ControllerOptions<K> {
  name: string;
  /** `log` carries this controller's name, the key and its plane: log through it. */
  reconcile: (key: K, log: Logger, pass: ReconcilePass) => Promise<Outcome | void>;
  toString: (key: K) => string;
  fromString: (key: string) => K;
  /** The plane a key names, bound on its log lines; e.g. `(key) => key.plane`. */
  planeOf?: (key: K) => string | undefined;
  /** How many keys are reconciled concurrently (never the same key twice). Default 1. */
  workers?: number;
  clock: Clock;
  log: Logger;
  /** Default: the process's metrics. */
  metrics?: RuntimeMetrics;
  /** Default: controller-runtime's. */
  rateLimiter?: RateLimiter;
  /** What follows a stale write (409 Conflict, 404): default 'watch', see the module table. */
  onStale?: StalePolicy;
}

/** A controller as whoever runs it sees it, whatever its key type: named, started, stopped. */
export interface RunnableController {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export class Controller<K> implements RunnableController {
  readonly name: string;
  private readonly options: ControllerOptions<K>;
  private readonly queue: WorkQueue;
  private readonly metrics: RuntimeMetrics;
  private readonly log: Logger;
  private readonly unsubscribes = new Set<() => void>();
  private workers: Promise<void>[] | undefined;

  constructor(options: ControllerOptions<K>) {
    this.name = options.name;
    this.options = options;
    this.metrics = options.metrics ?? processMetrics();
    this.log = controllerLogger(options.log, { controller: options.name });
    this.queue = new WorkQueue({
      name: options.name,
      clock: options.clock,
      rateLimiter: options.rateLimiter,
      metrics: this.metrics,
    });
  }

  /** Asks for `key` to be reconciled, now or after `afterMs`. */
  enqueue(key: K, afterMs?: number): void {
    const keyString = this.options.toString(key);
    if (afterMs !== undefined && afterMs > 0) this.queue.addAfter(keyString, afterMs);
    else this.queue.add(keyString);
  }

  /** Subscribes `trigger`; the returned function unsubscribes it (as `stop` does for all). */
  watch(trigger: Trigger<K>): () => void {
    const unsubscribe = trigger((key) => this.enqueue(key));
    let subscribed = true;
    const disengage = (): void => {
      if (!subscribed) return;
      subscribed = false;
      this.unsubscribes.delete(disengage);
      unsubscribe();
    };
    this.unsubscribes.add(disengage);
    return disengage;
  }

  /** Starts the workers; resolves once they are taking keys. */
  async start(): Promise<void> {
    if (this.workers) throw new Error(`controller ${this.name} is already started`);
    if (this.queue.shuttingDown) throw new Error(`controller ${this.name} is stopped and cannot start again`);
    const count = Math.max(1, this.options.workers ?? 1);
    this.log.info({ workers: count }, 'starting workers');
    this.workers = Array.from({ length: count }, () => this.work());
    this.metrics.maxConcurrentReconciles.inc({ controller: this.name }, count);
  }

  /** Stops taking keys and unsubscribes every trigger; resolves when in-flight reconciles end. */
  async stop(): Promise<void> {
    for (const unsubscribe of [...this.unsubscribes]) unsubscribe();
    this.queue.shutdown();
    const workers = this.workers ?? [];
    if (this.workers) this.workers = []; // a second stop finds none to wait for or count
    await Promise.all(workers);
    if (workers.length) this.metrics.maxConcurrentReconciles.dec({ controller: this.name }, workers.length);
    this.log.info('stopped');
  }

  private async work(): Promise<void> {
    for (;;) {
      const keyString = await this.queue.get();
      if (keyString === undefined) return;
      await this.reconcileOne(keyString);
      this.queue.done(keyString);
    }
  }

  private async reconcileOne(keyString: string): Promise<void> {
    const { clock, planeOf } = this.options;
    const started = clock.now();
    // Made once the key has parsed (it names the key's plane); a key that does not gets one without.
    let log: Logger | undefined;
    let outcome: Outcome;
    try {
      const key = this.parse(keyString);
      log = reconcileLogger(this.options.log, {
        controller: this.name,
        plane: planeOf?.(key),
        key: keyString,
      });
      outcome = await this.pass(key, log, false);
      // onStale 'reread': the passes after a stale one read from the server (the module's table).
      for (let passes = 1; passes < FRESH_READ_ATTEMPTS && this.rereads(outcome); passes++)
        outcome = await this.pass(key, log, true);
    } catch (error) {
      outcome = { kind: 'failed', error }; // the key did not parse (a TerminalError), or planeOf threw
    }
    this.metrics.reconcileTime.observe({ controller: this.name }, (clock.now() - started) / 1000);
    this.afterReconcile(
      keyString,
      outcome,
      log ?? reconcileLogger(this.options.log, { controller: this.name, key: keyString }),
    );
  }

  /** One pass of the reconciler; a thrown 409 Conflict or 404 NotFound is a stale write. */
  private async pass(key: K, log: Logger, fresh: boolean): Promise<Outcome> {
    try {
      return (await asAgent(this.name, () => this.options.reconcile(key, log, { fresh }))) ?? done();
    } catch (error) {
      return isConflict(error) || isNotFound(error) ? stale() : { kind: 'failed', error };
    }
  }

  private rereads(outcome: Outcome): boolean {
    return outcome.kind === 'stale' && this.options.onStale === 'reread';
  }

  /** A key string that does not parse never will: terminal. */
  private parse(keyString: string): K {
    try {
      return this.options.fromString(keyString);
    } catch (error) {
      throw new TerminalError(`controller ${this.name} cannot parse its key ${JSON.stringify(keyString)}`, {
        cause: error,
      });
    }
  }

  /** The retry policy, whole: the table of the module comment. */
  private afterReconcile(keyString: string, outcome: Outcome, log: Logger): void {
    switch (outcome.kind) {
      case 'done':
        this.queue.forget(keyString);
        this.count('success');
        log.debug('reconciled');
        return;
      case 'requeue':
        this.queue.forget(keyString);
        this.queue.add(keyString);
        this.count('requeue');
        log.debug('reconciled, requeueing at once');
        return;
      case 'after':
        this.queue.forget(keyString);
        this.queue.addAfter(keyString, outcome.ms);
        this.count('requeue_after');
        log.debug({ requeueAfterMs: outcome.ms }, 'reconciled, requeueing after a delay');
        return;
      case 'stale':
        if (this.options.onStale === 'backoff' || this.options.onStale === 'reread')
          this.queue.addRateLimited(keyString);
        else {
          this.queue.forget(keyString);
          if (this.options.onStale === 'requeue') this.queue.add(keyString);
        }
        this.count('stale');
        log.debug(
          { retries: this.queue.numRequeues(keyString), onStale: this.options.onStale ?? 'watch' },
          'a write was based on a stale copy; the newer state will wake this key',
        );
        return;
      case 'failed':
        if (outcome.error instanceof TerminalError) {
          this.queue.forget(keyString);
          this.count('error');
          this.metrics.terminalReconcileErrors.inc({ controller: this.name });
          log.error({ err: outcome.error }, 'reconcile failed terminally; not retrying');
          return;
        }
        this.queue.addRateLimited(keyString);
        this.count('error');
        if (isAlreadyExists(outcome.error))
          log.debug(
            { err: outcome.error.message, retries: this.queue.numRequeues(keyString) },
            'reconcile created an object that already exists; retrying with backoff',
          );
        else
          log.error(
            { err: outcome.error, retries: this.queue.numRequeues(keyString) },
            'reconcile failed; retrying with backoff',
          );
        return;
    }
  }

  private count(result: ReconcileResult): void {
    this.metrics.reconcileTotal.inc({ controller: this.name, result });
    if (result === 'error') this.metrics.reconcileErrors.inc({ controller: this.name });
  }
}
