/**
 * Throughput over time, scraped from the processes' Prometheus `/metrics` (the manager's and each
 * cell's): every second, the bindings Ready (`netpresence_network_bindings_ready`, summed) and the
 * claims Bound (`netpresence_network_interface_claims_bound`, summed over cells), and the latest
 * binding→Ready latency histogram (`netpresence_network_binding_ready_duration_seconds`), kept
 * for the last `WINDOW` samples.
 *
 * Guarantees: bounded memory (a ring of WINDOW samples); read-only (GET on each URL, each with a
 * SCRAPE_TIMEOUT_MS bound); one scrape at a time — a sample asked for while one runs is skipped;
 * a target that fails is reported with its error and left out of that sample's sums; a sample in
 * which no target answered records nothing (a gap, not a zero).
 */
import { histogramOf, parsePrometheusText, sumOf, type Sample } from './prometheus-text.ts';
import type { ThroughputView } from './view-types.ts';

export const WINDOW = 600;
export const SCRAPE_TIMEOUT_MS = 2000;
export const BINDINGS_READY = 'netpresence_network_bindings_ready';
export const CLAIMS_BOUND = 'netpresence_network_interface_claims_bound';
export const BINDING_READY_DURATION = 'netpresence_network_binding_ready_duration_seconds';

/** A scraped target, and the error of its last scrape when it failed. */
export type TargetState = ThroughputView['targets'][number];
export type { ThroughputView } from './view-types.ts';

export type Fetch = (url: string, init: { signal: AbortSignal }) => Promise<Response>;

export class Throughput {
  private readonly times: number[] = [];
  private readonly bindingsReady: number[] = [];
  private readonly claimsBound: number[] = [];
  private latency: { le: number; count: number }[] = [];
  private readonly targets: TargetState[];
  private running: Promise<void> | undefined;

  constructor(
    metricsUrls: readonly string[],
    private readonly fetchText: Fetch = fetch,
  ) {
    this.targets = metricsUrls.map((url) => ({ url }));
  }

  /** Scrapes every target once and records a sample at `now` (ms); resolves when done. */
  sample(now: number): Promise<void> {
    if (this.running || this.targets.length === 0) return this.running ?? Promise.resolve();
    this.running = this.scrape(now).finally(() => (this.running = undefined));
    return this.running;
  }

  private async scrape(now: number): Promise<void> {
    const scraped = await Promise.all(this.targets.map((target) => this.scrapeOne(target)));
    const answered = scraped.filter((samples): samples is Sample[] => samples !== undefined);
    if (answered.length === 0) return;
    const all = answered.flat();
    this.times.push(Math.floor(now / 1000));
    this.bindingsReady.push(sumOf(all, BINDINGS_READY) ?? 0);
    this.claimsBound.push(sumOf(all, CLAIMS_BOUND) ?? 0);
    this.latency = histogramOf(all, BINDING_READY_DURATION);
    if (this.times.length > WINDOW)
      for (const ring of [this.times, this.bindingsReady, this.claimsBound]) ring.shift();
  }

  private async scrapeOne(target: TargetState): Promise<Sample[] | undefined> {
    try {
      const response = await this.fetchText(target.url, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
      if (!response.ok) throw new Error(`${target.url} answered ${response.status}`);
      const samples = parsePrometheusText(await response.text());
      delete target.error;
      return samples;
    } catch (err) {
      target.error = (err as Error).message;
      return undefined;
    }
  }

  view(): ThroughputView {
    const finite = this.latency.filter((bucket) => Number.isFinite(bucket.le));
    return {
      targets: this.targets.map((target) => ({ ...target })),
      times: [...this.times],
      bindingsReady: [...this.bindingsReady],
      claimsBound: [...this.claimsBound],
      latency: {
        le: finite.map((bucket) => bucket.le),
        count: finite.map((bucket) => bucket.count),
        total: this.latency.find((bucket) => bucket.le === Infinity)?.count ?? 0,
      },
    };
  }
}
