/**
 * Bindings Ready and claims Bound over time, and the binding→Ready latency distribution (uPlot),
 * as the server scraped them from the processes' Prometheus /metrics; refreshed every second.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { getJson, type ThroughputView } from './api.ts';

function Chart({
  title,
  data,
  series,
  xTime,
}: {
  title: string;
  data: uPlot.AlignedData;
  series: string[];
  xTime: boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const width = Math.min(host.current.clientWidth || 600, 900);
    const colours = ['#1b6e3a', '#1f4e8c'];
    const plot = new uPlot(
      {
        title,
        width,
        height: 220,
        scales: { x: { time: xTime } },
        series: [
          { label: xTime ? 'time' : 'seconds ≤' },
          ...series.map((label, i) => ({ label, stroke: colours[i], width: 2 })),
        ],
      },
      data,
      host.current,
    );
    return () => plot.destroy();
  }, [data, title]);
  return <figure aria-label={title} ref={host} class="chart" />;
}

export const REFRESH_MS = 1000;

export function ThroughputPage({ version }: { version: number }) {
  const [view, setView] = useState<ThroughputView | undefined>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    let current = true;
    void getJson<ThroughputView>('/api/throughput').then(
      (loaded) => current && setView(loaded),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [version, tick]);
  return (
    <section aria-labelledby="throughput-title">
      <h2 id="throughput-title">Throughput</h2>
      {!view && <p>Loading…</p>}
      {view && view.targets.length === 0 && (
        <p>No Prometheus /metrics endpoint to scrape: start the dashboard with --metrics-url.</p>
      )}
      {view && view.targets.length > 0 && (
        <>
          <Chart
            title="Bindings Ready and claims Bound"
            data={[view.times, view.bindingsReady, view.claimsBound]}
            series={['bindings Ready', 'claims Bound']}
            xTime
          />
          <Chart
            title="Bindings Ready within N seconds of creation"
            data={[view.latency.le, view.latency.count]}
            series={['bindings']}
            xTime={false}
          />
          <p>
            Latest: {view.bindingsReady.at(-1) ?? 0} bindings Ready, {view.claimsBound.at(-1) ?? 0} claims
            Bound; {view.latency.total} bindings turned Ready since the processes started.
          </p>
          <h3>Scraped from</h3>
          <ul class="targets">
            {view.targets.map((target) => (
              <li key={target.url}>
                <code>{target.url}</code>: {target.error ? `not answering (${target.error})` : 'scraped'}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
