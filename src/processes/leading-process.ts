/**
 * What the three leader-elected processes — `netpresence manager`, `netpresence cell`,
 * `netpresence propagator` — are started with besides their planes, and what each returns.
 *
 * Guarantees: types only. Each process serves `/metrics` and the health probes where asked,
 * holds its Lease through `runWhileLeading` (runtime/run-while-leading.ts), and its `stop()`
 * ends leadership (releasing the Lease) before it closes anything else.
 */
import type { Logger } from 'pino';
import type { Clock } from '../runtime/clock.ts';
import type { ListenAddress } from '../runtime/endpoints.ts';
import type { LeaseTiming } from '../runtime/leader-election.ts';

export interface LeadingProcessOptions {
  log: Logger;
  clock?: Clock;
  metricsAddr?: ListenAddress;
  healthAddr?: ListenAddress;
  /** The Lease holder identity; default `<hostname>_<random>`. */
  identity?: string;
  leaseTiming?: Partial<LeaseTiming>;
}

export interface LeadingProcess {
  /** Where `/metrics` is served, when asked for. */
  metricsUrl?: string;
  /** Where `/healthz` and `/readyz` are served, when asked for. */
  healthUrl?: string;
  isLeader(): boolean;
  stop(): Promise<void>;
}
