/**
 * Reflector: keeps a Store equal to one (plane, resource) on the API server — paginated list,
 * then a watch from the list's resourceVersion — and reports every change it makes.
 *
 * Guarantees:
 * - the first list is read in pages of `pageSize` (`limit` + `continue`) and lands in the store
 *   at once; `synced()` resolves after that, never before (and rejects if stopped first);
 * - the watch starts from the list's resourceVersion with bookmarks, and every event or
 *   bookmark advances the remembered resourceVersion, so a new watch resumes exactly where the
 *   last one ended, losing and repeating nothing;
 * - a 410 (GoneError, or an ERROR event carrying code 410) means the resume point left the
 *   server's window: the reflector lists again and reports the difference (Store.replace), so
 *   consumers also see the deletions that happened while it was away;
 * - any other failure, and a clean end of the stream, is followed by a new watch from the last
 *   resourceVersion after a jittered exponential backoff (100 ms → 30 s by default), which
 *   starts over once a watch has stayed up for `resetAfterMs`;
 * - a watchdog ends a watch that delivered nothing (no event, no bookmark) for `watchdogMs`,
 *   and a list or watch request that has not answered within the same bound; the reflector then
 *   reconnects as after a failure;
 * - `stop()` ends the watch and every timer; once it resolves nothing is open and nothing is
 *   reported any more. A watch request that was still connecting is closed the moment it
 *   answers.
 *
 * Assumes: the server sends bookmarks more often than `watchdogMs` (Kubernetes: about once a
 * minute), else a quiet resource is re-watched every `watchdogMs` — harmless, as it resumes.
 * All timing goes through the Clock. Caveat: a list request that is still in flight when the
 * reflector stops is abandoned, not cancelled; its answer is discarded.
 *
 * Worked example: listed at 40 (a@12, b@31); the watch reports b@44 MODIFIED; the server
 * restarts and the reconnect (from 44) answers 410 because 45–90 were compacted; the relist
 * at 95 holds b@60 and c@70, so consumers see MODIFIED b@60, ADDED c@70 and DELETED a.
 */
import type { Logger } from 'pino';
import { isGone, statusErrorFrom, type Status } from '../client/errors.ts';
import type { KubeObject, ResourceClient, WatchEvent, WatchHandle } from '../client/types.ts';
import type { Clock, TimerHandle } from './clock.ts';
import type { InformerEvent } from './informer-contract.ts';
import { DEFAULT_RECONNECT_BACKOFF, ReconnectBackoff, type BackoffPolicy } from './reconnect-backoff.ts';
import type { Store } from './store.ts';

export const DEFAULT_PAGE_SIZE = 500;
export const DEFAULT_WATCHDOG_MS = 5 * 60_000;
/** Like client-go, ask the server to end each watch after 5–10 minutes, so watches renew. */
export const WATCH_TIMEOUT_SECONDS: [number, number] = [300, 600];

export interface ReflectorSettings {
  pageSize?: number;
  backoff?: Partial<BackoffPolicy>;
  watchdogMs?: number;
  /** For jitter; tests pin it. */
  random?: () => number;
}

export interface ReflectorOptions<T extends KubeObject> extends ReflectorSettings {
  plane: string;
  client: ResourceClient<T>;
  store: Store<T>;
  clock: Clock;
  log: Logger;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Called with each change after the store reflects it. */
  onChange(event: InformerEvent<T>): void;
}

/** How one list or watch attempt ended; the run loop's whole retry policy switches on this. */
type Attempt =
  | { kind: 'listed' }
  | { kind: 'stopped' }
  | { kind: 'gone'; err: Error; lastedMs: number }
  | { kind: 'closed'; lastedMs: number }
  | { kind: 'silent'; lastedMs: number }
  | { kind: 'failed'; err: Error; lastedMs: number };

const STOPPED = Symbol('stopped');
const TIMED_OUT = Symbol('timed out');

export function resourceName(client: ResourceClient): string {
  return client.id.group === '' ? client.id.plural : `${client.id.plural}.${client.id.group}`;
}

export class Reflector<T extends KubeObject> {
  private stopped = false;
  /**
   * Ends the one attempt in flight (a list page, a watch, a backoff's sleep) when `stop()` is
   * called. Attempts run one at a time, so one slot serves; a fleet runs tens of thousands of
   * reflectors, and an AbortController each cost about 0.8 KiB of heap (bench/README.md).
   */
  private onStop?: () => void;
  private readonly backoff: ReconnectBackoff;
  #log?: Logger;
  private readonly watchdogMs: number;
  private readonly random: () => number;
  private resourceVersion = '';
  private loop?: Promise<void>;
  private readonly firstList: Promise<void>;
  private markSynced!: () => void;
  private failSynced!: (err: Error) => void;

  constructor(private readonly options: ReflectorOptions<T>) {
    this.random = options.random ?? Math.random;
    this.backoff = new ReconnectBackoff({ ...DEFAULT_RECONNECT_BACKOFF, ...options.backoff }, this.random);
    this.watchdogMs = options.watchdogMs ?? DEFAULT_WATCHDOG_MS;
    this.firstList = new Promise<void>((resolve, reject) => {
      this.markSynced = resolve;
      this.failSynced = reject;
    });
    // Nobody need await synced(); an unawaited rejection must not crash the process.
    this.firstList.catch(() => undefined);
  }

  /**
   * The reflector's logger (plane and resource bound), made at its first line: a fleet runs tens
   * of thousands of reflectors, most of which never log, and a child logger each was 0.4 KiB.
   */
  private get log(): Logger {
    return (this.#log ??= this.options.log.child({
      plane: this.options.plane,
      resource: resourceName(this.options.client),
    }));
  }

  /** The resourceVersion the next watch resumes from ('' before the first list). */
  get lastResourceVersion(): string {
    return this.resourceVersion;
  }

  start(): void {
    this.loop ??= this.run();
  }

  synced(): Promise<void> {
    return this.firstList;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.onStop?.();
    this.failSynced(
      new Error(`the ${resourceName(this.options.client)} reflector stopped before its first list`),
    );
    await this.loop;
  }

  private async run(): Promise<void> {
    let relist = true;
    while (!this.stopped) {
      const attempt = relist ? await this.list() : await this.watch();
      switch (attempt.kind) {
        case 'stopped':
          return;
        case 'listed':
          relist = false;
          continue;
        case 'gone':
          this.log.info({ resourceVersion: this.resourceVersion }, 'resume point expired; listing again');
          relist = true;
          break;
        case 'closed':
          if (this.options.log.isLevelEnabled('debug'))
            this.log.debug({ resourceVersion: this.resourceVersion }, 'watch ended; resuming');
          break;
        case 'silent':
          this.log.warn(
            { resourceVersion: this.resourceVersion, silentMs: this.watchdogMs },
            'watch silent; reconnecting',
          );
          break;
        case 'failed':
          this.log.warn(
            { err: attempt.err, resourceVersion: this.resourceVersion },
            `${relist ? 'list' : 'watch'} failed; retrying`,
          );
          break;
      }
      if (attempt.lastedMs >= this.backoff.policy.resetAfterMs) this.backoff.reset();
      if (!(await this.sleep(this.backoff.next()))) return;
    }
  }

  private async list(): Promise<Attempt> {
    const { client, namespace, labelSelector, fieldSelector } = this.options;
    const items: T[] = [];
    let resourceVersion: string | undefined;
    let next: string | undefined;
    try {
      do {
        const page = await this.bounded(
          client.list({
            namespace,
            labelSelector,
            fieldSelector,
            limit: this.options.pageSize ?? DEFAULT_PAGE_SIZE,
            continue: next,
          }),
        );
        if (page === STOPPED) return { kind: 'stopped' };
        if (page === TIMED_OUT) throw new Error(`the list did not answer within ${this.watchdogMs} ms`);
        items.push(...page.items);
        resourceVersion ??= page.resourceVersion;
        next = page.continue || undefined;
      } while (next);
    } catch (err) {
      return { kind: isGone(err) ? 'gone' : 'failed', err: err as Error, lastedMs: 0 };
    }
    let changes: InformerEvent<T>[];
    try {
      changes = this.options.store.replace(items);
    } catch (err) {
      return { kind: 'failed', err: err as Error, lastedMs: 0 };
    }
    this.resourceVersion = resourceVersion;
    if (this.options.log.isLevelEnabled('debug'))
      this.log.debug({ resourceVersion, objects: items.length, changes: changes.length }, 'listed');
    for (const change of changes) this.report(change);
    this.markSynced();
    return { kind: 'listed' };
  }

  /** Waits `ms` (a backoff); false when stop() came first. */
  private async sleep(ms: number): Promise<boolean> {
    if (this.stopped) return false;
    const sleeping = new AbortController();
    this.onStop = () => sleeping.abort();
    try {
      await this.options.clock.sleep(ms, sleeping.signal);
      return !this.stopped;
    } catch {
      return false;
    } finally {
      this.onStop = undefined;
    }
  }

  /** Races a request against stop() and the watchdog bound. */
  private bounded<R>(request: Promise<R>): Promise<R | typeof STOPPED | typeof TIMED_OUT> {
    const { clock } = this.options;
    return new Promise((resolve, reject) => {
      const onStop = (): void => settle(() => resolve(STOPPED));
      const timer = clock.setTimeout(() => settle(() => resolve(TIMED_OUT)), this.watchdogMs);
      let settled = false;
      const settle = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clock.clearTimeout(timer);
        if (this.onStop === onStop) this.onStop = undefined;
        fn();
      };
      if (this.stopped) return onStop();
      this.onStop = onStop;
      request.then(
        (value) => settle(() => resolve(value)),
        (err) => settle(() => reject(err as Error)),
      );
    });
  }

  private watch(): Promise<Attempt> {
    const { client, clock, namespace, labelSelector, fieldSelector } = this.options;
    const startedAt = clock.now();
    const [low, high] = WATCH_TIMEOUT_SECONDS;
    return new Promise((resolve) => {
      let handle: WatchHandle | undefined;
      let ended = false;
      let lastHeard = startedAt;
      let watchdog: TimerHandle | undefined;
      const end = (attempt: Attempt): void => {
        if (ended) return;
        ended = true;
        if (watchdog) clock.clearTimeout(watchdog);
        if (this.onStop === onStop) this.onStop = undefined;
        handle?.abort();
        resolve(attempt);
      };
      const lasted = (): number => clock.now() - startedAt;
      const failed = (err: Error): Attempt => ({
        kind: isGone(err) ? 'gone' : 'failed',
        err,
        lastedMs: lasted(),
      });
      const onStop = (): void => end({ kind: 'stopped' });
      const checkSilence = (): void => {
        const silentMs = clock.now() - lastHeard;
        if (silentMs >= this.watchdogMs) end({ kind: 'silent', lastedMs: lasted() });
        else watchdog = clock.setTimeout(checkSilence, this.watchdogMs - silentMs);
      };
      const onEvent = (...[type, object]: WatchEvent<T>): void => {
        if (ended) return;
        lastHeard = clock.now();
        if (type === 'ERROR') {
          const status: Status = object ?? {};
          end(failed(statusErrorFrom(status.code ?? 500, status)));
        } else if (type === 'BOOKMARK') {
          this.resourceVersion = object.metadata.resourceVersion ?? this.resourceVersion;
        } else {
          this.observe({ type, object });
        }
      };

      watchdog = clock.setTimeout(checkSilence, this.watchdogMs);
      if (this.stopped) return onStop();
      this.onStop = onStop;
      client
        .watch(
          {
            namespace,
            labelSelector,
            fieldSelector,
            resourceVersion: this.resourceVersion,
            allowWatchBookmarks: true,
            timeoutSeconds: Math.round(low + this.random() * (high - low)),
          },
          onEvent,
          (err) => end(err ? failed(err) : { kind: 'closed', lastedMs: lasted() }),
        )
        .then(
          (opened) => {
            handle = opened;
            if (ended) opened.abort();
          },
          (err: Error) => end(failed(err)),
        );
    });
  }

  private observe(event: InformerEvent<T>): void {
    this.resourceVersion = event.object.metadata.resourceVersion ?? this.resourceVersion;
    let change: InformerEvent<T> | undefined;
    try {
      change = this.options.store.apply(event);
    } catch (err) {
      // An index function threw: the store kept its previous state for this object.
      this.log.error(
        { err, name: event.object.metadata.name, namespace: event.object.metadata.namespace },
        'store refused a change',
      );
      return;
    }
    if (change) this.report(change);
  }

  private report(change: InformerEvent<T>): void {
    try {
      this.options.onChange(change);
    } catch (err) {
      this.log.error({ err, type: change.type, name: change.object.metadata.name }, 'change handler threw');
    }
  }
}
