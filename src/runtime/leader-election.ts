/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it:
 * one holder at a time among the candidates that share a Lease name and namespace.
 *
 * Guarantees:
 * - a candidate takes the Lease only when it is free (absent, released, no holder) or when
 *   the record it last saw has not changed for the Lease's duration (15 s), measured on its own
 *   clock from when it saw the change — never by comparing clocks across processes;
 * - every write is a PUT (or a create) carrying the resourceVersion it read, so of two
 *   candidates racing only one wins; the loser sees a Conflict and stays a candidate;
 * - the leader renews every retry period (2 s). One that has not renewed for the renew
 *   deadline (10 s), or that sees another holder, stops leading at once: its term's signal is
 *   aborted and `onStoppedLeading` is called. The deadline is shorter than the Lease's
 *   duration, so it has stopped before any other candidate may take over;
 * - one term at a time per process: after a lost term the elector is a candidate again, but
 *   only once the promise `onStartedLeading` returned has settled;
 * - `stop()` ends the term (signal, `onStoppedLeading`), waits for its work to settle, then
 *   releases the Lease (no holder, duration 1 s) so another candidate takes over at its next
 *   retry instead of waiting out the Lease (the default timing hands over in 2–4.4 s);
 * - no acquire or renew starts, and none writes, once `stop()` began; before releasing, `stop()`
 *   waits (up to the renew deadline) for the requests of any attempt still in flight to settle,
 *   so a renewal cannot land after the release and leave this candidate holding the Lease.
 *
 * Assumes: every candidate uses the same timing. The namespace is created if absent when a
 * namespaces client is given (Kubernetes serves `kube-system` always; other planes may not).
 * Caveat: if `onStartedLeading`'s work ends by itself, the process keeps leading idle — as in
 * client-go; return only when the signal aborts.
 *
 * Worked example (default timing): A holds the Lease and renews at 0, 2, 4 s; its network
 * fails at 5 s. A's attempts at 6, 8, 10, 12 s fail; at 14 s (4 + 10) A stops leading. B saw
 * A's last renewal at some t ≥ 4 s, so it may take the Lease at t + 15 ≥ 19 s — after A stopped.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { isAlreadyExists, isConflict } from '../client/errors.ts';
import type { KubeObject, ResourceClient, ResourceId } from '../client/types.ts';
import { systemClock, type Clock } from './clock.ts';
import { NAMESPACES } from './resource-ids.ts';

export const LEASES: ResourceId = {
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
};

/** The Lease's namespace is created when absent (resource-ids.ts has the id). */
export { NAMESPACES };

export interface LeaseTiming {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** client-go's defaults. */
export const DEFAULT_LEASE_TIMING: LeaseTiming = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/** A candidate waits retryPeriod × (1 + up to 1.2) between attempts, as client-go's JitterFactor. */
const JITTER_FACTOR = 1.2;
const RELEASED_DURATION_SECONDS = 1;

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

export interface LeaderElectionOptions {
  client: ResourceClient<Lease>;
  namespacesClient?: ResourceClient;
  name: string;
  namespace: string;
  identity: string;
  log: Logger;
  clock?: Clock;
  timing?: Partial<LeaseTiming>;
  /** For jitter; tests pin it. */
  random?: () => number;
  onStartedLeading(signal: AbortSignal): Promise<void> | void;
  onStoppedLeading(): void;
}

export interface LeaderElection {
  isLeader(): boolean;
  /** Ends candidacy, stops leading, waits for the work to settle, releases the Lease. */
  stop(): Promise<void>;
}

type Attempt = 'holding' | 'held-by-other' | 'failed';

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/** A candidate identity unique to this process: `<hostname>_<8 hex>`, as client-go builds one. */
export function defaultCandidateIdentity(): string {
  return `${hostname()}_${randomBytes(4).toString('hex')}`;
}

/** Resolves when the term of leadership whose signal this is ends (at once if it has). */
export function termEnded(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

export function runLeaderElection(options: LeaderElectionOptions): LeaderElection {
  const elector = new LeaderElector(options);
  elector.start();
  return elector;
}

class LeaderElector implements LeaderElection {
  private readonly clock: Clock;
  private readonly timing: LeaseTiming;
  private readonly random: () => number;
  private readonly log: Logger;
  private readonly stopping = new AbortController();
  private loop?: Promise<void>;
  private term?: AbortController;
  /** tryAcquireOrRenew calls not yet settled, including those an attempt abandoned; never reject. */
  private readonly inFlight = new Set<Promise<void>>();
  /** The Lease as last read or written, and when (our clock) its record last changed. */
  private observed?: { lease: Lease; changedAt: number };

  constructor(private readonly options: LeaderElectionOptions) {
    this.clock = options.clock ?? systemClock;
    this.timing = { ...DEFAULT_LEASE_TIMING, ...options.timing };
    this.random = options.random ?? Math.random;
    this.log = options.log.child({
      lease: `${options.namespace}/${options.name}`,
      identity: options.identity,
    });
  }

  start(): void {
    this.loop ??= this.run();
  }

  isLeader(): boolean {
    return this.term !== undefined && !this.term.signal.aborted;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
    // An attempt abandoned when stopping aborted may still have a request on the wire; let it
    // settle first, or its write could land after the release. Bounded, so that a hung
    // connection cannot hang shutdown: the Lease then simply expires.
    if (this.inFlight.size > 0) await this.bounded(Promise.all(this.inFlight));
    await this.release();
  }

  private async run(): Promise<void> {
    const { retryPeriodMs } = this.timing;
    while (!this.stopping.signal.aborted) {
      if ((await this.attempt(this.stopping.signal)) === 'holding') {
        await this.lead();
        continue;
      }
      if (!(await this.pause(retryPeriodMs * (1 + this.random() * JITTER_FACTOR), this.stopping.signal)))
        return;
    }
  }

  /** One term: renew every retry period until the deadline passes, another holds, or stop. */
  private async lead(): Promise<void> {
    const term = new AbortController();
    this.term = term;
    let renewedAt = this.clock.now();
    this.log.info('started leading');
    const work = Promise.resolve()
      .then(() => this.options.onStartedLeading(term.signal))
      .catch((err: unknown) => this.log.error({ err }, 'onStartedLeading failed'));

    const within = AbortSignal.any([term.signal, this.stopping.signal]);
    const checkDeadline = (): void => {
      const sinceRenewal = this.clock.now() - renewedAt;
      if (sinceRenewal >= this.timing.renewDeadlineMs)
        this.endTerm(term, 'could not renew within the renew deadline');
      else deadline = this.clock.setTimeout(checkDeadline, this.timing.renewDeadlineMs - sinceRenewal);
    };
    let deadline = this.clock.setTimeout(checkDeadline, this.timing.renewDeadlineMs);

    while (await this.pause(this.timing.retryPeriodMs, within)) {
      const outcome = await this.attempt(within);
      if (within.aborted) break;
      if (outcome === 'holding') renewedAt = this.clock.now();
      else if (outcome === 'held-by-other') this.endTerm(term, 'another candidate holds the lease');
    }
    this.clock.clearTimeout(deadline);
    this.endTerm(term, 'stopping');
    await work;
    this.term = undefined;
  }

  private endTerm(term: AbortController, reason: string): void {
    if (term.signal.aborted) return;
    term.abort(new Error(`stopped leading: ${reason}`));
    this.log.info({ reason }, 'stopped leading');
    try {
      this.options.onStoppedLeading();
    } catch (err) {
      this.log.error({ err }, 'onStoppedLeading failed');
    }
  }

  /** Sleeps; false when `signal` aborted first. */
  private async pause(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** tryAcquireOrRenew, bounded by the renew deadline and abandoned when `signal` aborts. */
  private async attempt(signal: AbortSignal): Promise<Attempt> {
    if (signal.aborted || this.stopping.signal.aborted) return 'failed';
    const request = this.tryAcquireOrRenew();
    const settled: Promise<void> = request
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => this.inFlight.delete(settled));
    this.inFlight.add(settled);
    try {
      return (await this.bounded(request, signal)) ?? 'failed';
    } catch (err) {
      if (!isConflict(err) && !isAlreadyExists(err))
        this.log.warn({ err }, 'could not acquire or renew the lease');
      return 'failed';
    }
  }

  /** `request`'s answer, or undefined once the renew deadline passed or `signal` aborted. */
  private bounded<R>(request: Promise<R>, signal?: AbortSignal): Promise<R | undefined> {
    return new Promise((resolve, reject) => {
      const settle = (finish: () => void): void => {
        this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        finish();
      };
      const onAbort = (): void => settle(() => resolve(undefined));
      const timer = this.clock.setTimeout(onAbort, this.timing.renewDeadlineMs);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      request.then(
        (value) => settle(() => resolve(value)),
        (err) => settle(() => reject(err as Error)),
      );
    });
  }

  /** Writes nothing once stopping began: its answer may be abandoned, its write would outlive stop. */
  private async tryAcquireOrRenew(): Promise<Attempt> {
    const { client, name, namespace, identity } = this.options;
    const now = this.clock.now();
    const lease = await client.get(name, namespace);
    if (this.stopping.signal.aborted) return 'failed';
    if (!lease) {
      await this.ensureNamespace();
      if (this.stopping.signal.aborted) return 'failed';
      this.observe(await client.create(this.leaseRecord({ metadata: { name, namespace } }, now)));
      return 'holding';
    }
    this.observe(lease);
    const holder = lease.spec?.holderIdentity;
    if (holder && holder !== identity && !this.expired(lease, now)) return 'held-by-other';
    this.observe(await client.update(this.leaseRecord(lease, now)));
    return 'holding';
  }

  /** The Lease with this candidate as holder, renewed at `now`. */
  private leaseRecord(lease: Lease, now: number): Lease {
    const spec = lease.spec ?? {};
    const renewing = spec.holderIdentity === this.options.identity;
    return {
      ...lease,
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      spec: {
        ...spec,
        holderIdentity: this.options.identity,
        leaseDurationSeconds: this.timing.leaseDurationMs / 1000,
        acquireTime: renewing && spec.acquireTime ? spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: renewing ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? -1) + 1,
      },
    };
  }

  private observe(lease: Lease): void {
    if (this.observed?.lease.metadata.resourceVersion === lease.metadata.resourceVersion) return;
    this.observed = { lease, changedAt: this.clock.now() };
  }

  private expired(lease: Lease, now: number): boolean {
    const durationMs = (lease.spec?.leaseDurationSeconds ?? this.timing.leaseDurationMs / 1000) * 1000;
    return this.observed!.changedAt + durationMs <= now;
  }

  private async ensureNamespace(): Promise<void> {
    const namespaces = this.options.namespacesClient;
    if (!namespaces || (await namespaces.get(this.options.namespace))) return;
    try {
      await namespaces.create({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: this.options.namespace },
      });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  /** Gives the Lease up if this candidate still holds it; a failure only delays the handover. */
  private async release(): Promise<void> {
    const { client, name, namespace, identity } = this.options;
    try {
      const lease = await this.bounded(client.get(name, namespace));
      if (!lease || lease.spec?.holderIdentity !== identity) return;
      const now = microTime(this.clock.now());
      const spec: LeaseSpec = {
        ...lease.spec,
        leaseDurationSeconds: RELEASED_DURATION_SECONDS,
        acquireTime: now,
        renewTime: now,
      };
      delete spec.holderIdentity;
      if (await this.bounded(client.update({ ...lease, spec }))) this.log.info('released the lease');
    } catch (err) {
      this.log.warn({ err }, 'could not release the lease; another candidate takes over once it expires');
    }
  }
}
