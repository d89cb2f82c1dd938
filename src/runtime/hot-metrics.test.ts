import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { HotCounter, HotGauge, HotHistogram } from './hot-metrics.ts';

type Values = { value: number; labels: Record<string, unknown>; metricName?: string }[];
const plain = (values: Values) =>
  values.map(({ value, labels, metricName }) => ({ value, labels: { ...labels }, metricName }));

describe('hot metrics', () => {
  it('a counter exposes what prom-client exposes after the same increments', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const hot = new HotCounter('writes_total', 'Writes, by plane and verb', ['plane', 'verb'], [ours]);
    const reference = new Counter({
      name: 'writes_total',
      help: 'Writes, by plane and verb',
      labelNames: ['plane', 'verb'],
      registers: [theirs],
    });
    assert.equal(await ours.metrics(), await theirs.metrics(), 'no series before the first increment');
    for (const [labels, by] of [
      [{ plane: 'hub', verb: 'create' }, 1],
      [{ plane: 'hub', verb: 'update' }, 2],
      [{ plane: 'hub', verb: 'create' }, 1],
      [{ plane: 'cell "a"\n', verb: 'create' }, 0.5],
    ] as const) {
      hot.inc(labels, by);
      reference.inc(labels, by);
    }
    assert.equal(await ours.metrics(), await theirs.metrics());
    assert.deepEqual(plain((await hot.get()).values), plain((await reference.get()).values));
    assert.throws(
      () => hot.inc({ plane: 'hub', verb: 'create' }, -1),
      /writes_total: a counter only goes up/,
    );
    ours.resetMetrics();
    theirs.resetMetrics();
    assert.equal(await ours.metrics(), await theirs.metrics(), 'reset empties every series');
  });

  it('a histogram exposes what prom-client exposes: buckets, +Inf, sum and count per series', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const buckets = [0.005, 0.025, 0.1, 1];
    const hot = new HotHistogram('latency_seconds', 'Latency', ['verb', 'host'], buckets, [ours]);
    const reference = new Histogram({
      name: 'latency_seconds',
      help: 'Latency',
      labelNames: ['verb', 'host'],
      buckets,
      registers: [theirs],
    });
    // On a bound, below the first, between, above the last: each lands where prom-client puts it.
    for (const [labels, seconds] of [
      [{ verb: 'GET', host: 'hub' }, 0.005],
      [{ verb: 'GET', host: 'hub' }, 0.001],
      [{ verb: 'PATCH', host: 'hub' }, 0.05],
      [{ verb: 'GET', host: 'hub' }, 3],
      [{ verb: 'GET', host: 'hub' }, 0.1],
    ] as const) {
      hot.observe(labels, seconds);
      reference.observe(labels, seconds);
    }
    assert.equal(await ours.metrics(), await theirs.metrics());
    assert.deepEqual(plain((await hot.get()).values), plain((await reference.get()).values));
    assert.throws(() => hot.observe({ verb: 'GET', host: 'hub' }, Number.NaN), /not a number/);
  });

  it('a gauge exposes what prom-client exposes after the same sets, increments and decrements', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const hot = new HotGauge('depth', 'Depth', ['name'], [ours]);
    const reference = new Gauge({ name: 'depth', help: 'Depth', labelNames: ['name'], registers: [theirs] });
    for (const gauge of [hot, reference]) {
      gauge.set({ name: 'claim' }, 0);
      gauge.inc({ name: 'claim' });
      gauge.inc({ name: 'interface' }, 3);
      gauge.dec({ name: 'claim' });
      gauge.dec({ name: 'interface' }, 1);
    }
    assert.equal(await ours.metrics(), await theirs.metrics());
    assert.deepEqual(plain((await hot.get()).values), plain((await reference.get()).values));
  });

  it('a metric without labels has one series', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const hot = new HotCounter('starts_total', 'Starts', [], [ours]);
    const reference = new Counter({ name: 'starts_total', help: 'Starts', registers: [theirs] });
    hot.inc({});
    hot.inc({}, 2);
    reference.inc(3);
    assert.equal(await ours.metrics(), await theirs.metrics());
  });

  it("keeps a copy of the first call's labels, not the caller's object", async () => {
    const hot = new HotCounter('adds_total', 'Adds', ['name'], [new Registry()]);
    const labels = { name: 'claim' };
    hot.inc(labels);
    labels.name = 'changed';
    assert.deepEqual((await hot.get()).values, [{ value: 1, labels: { name: 'claim' } }]);
  });
});
