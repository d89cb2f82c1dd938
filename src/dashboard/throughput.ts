/**
 * Throughput over time: every second, how many bindings are Ready and how many claims Bound,
 * and the distribution of binding→Ready latency (creation to the `Ready=True` transition), kept
 * for the last `WINDOW` samples.
 *
 * Guarantees: bounded memory (a ring of WINDOW samples); latency buckets are cumulative counts
 * over the bindings Ready now, as Prometheus histograms count.
 * Caveat: sampled from the dashboard's informer stores, not scraped from the processes'
 * `/metrics`; condition times have whole seconds, so latencies do too.
 */
import { conditionOf } from './overview.ts';
import type { DashboardSources } from './sources.ts';

export const WINDOW = 600;
export const LATENCY_BUCKETS_S = [1, 2, 5, 10, 30, 60, 300];

export interface ThroughputView {
  times: number[];
  bindingsReady: number[];
  claimsBound: number[];
  latency: { le: number[]; count: number[] };
}

export class Throughput {
  private readonly times: number[] = [];
  private readonly bindingsReady: number[] = [];
  private readonly claimsBound: number[] = [];

  constructor(private readonly sources: DashboardSources) {}

  sample(now: number): void {
    let claims = 0;
    for (const cell of this.sources.cellNames())
      for (const claim of this.sources.cell(cell)?.claims.list() ?? [])
        if (conditionOf(claim, 'Bound')?.status === 'True') claims++;
    const ready = this.sources.hub.bindings.list().filter((b) => conditionOf(b, 'Ready')?.status === 'True');
    this.times.push(Math.floor(now / 1000));
    this.bindingsReady.push(ready.length);
    this.claimsBound.push(claims);
    if (this.times.length > WINDOW)
      for (const ring of [this.times, this.bindingsReady, this.claimsBound]) ring.shift();
  }

  view(): ThroughputView {
    const latencies = this.sources.hub.bindings
      .list()
      .map((binding) => {
        const ready = (
          binding as {
            status?: { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
          }
        ).status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
        const created = Date.parse(binding.metadata.creationTimestamp ?? '');
        const at = Date.parse(ready?.lastTransitionTime ?? '');
        return Number.isNaN(created) || Number.isNaN(at) ? undefined : Math.max(0, (at - created) / 1000);
      })
      .filter((latency): latency is number => latency !== undefined);
    return {
      times: [...this.times],
      bindingsReady: [...this.bindingsReady],
      claimsBound: [...this.claimsBound],
      latency: {
        le: LATENCY_BUCKETS_S,
        count: LATENCY_BUCKETS_S.map((le) => latencies.filter((latency) => latency <= le).length),
      },
    };
  }
}
