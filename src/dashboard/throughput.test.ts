import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { Gauge, Histogram, Registry } from 'prom-client';
import { histogramOf, parsePrometheusText, sumOf } from './prometheus-text.ts';
import { BINDING_READY_DURATION, BINDINGS_READY, CLAIMS_BOUND, Throughput } from './throughput.ts';

const servers: Server[] = [];
after(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

/** Serves `registry` at /metrics on a loopback ephemeral port, as runtime/endpoints.ts does. */
async function serve(registry: Registry): Promise<string> {
  const server = createServer((request, response) => {
    if (request.url !== '/metrics') return void response.writeHead(404).end();
    void registry
      .metrics()
      .then((text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

describe('prometheus text', () => {
  it('reads names, escaped labels, special values and ignores comments and timestamps', () => {
    const samples = parsePrometheusText(
      [
        '# HELP x a gauge',
        '# TYPE x gauge',
        'x 3',
        'x{cell="a\\"b",path="c:\\\\d"} 4 1700000000000',
        'h_bucket{le="+Inf"} 9',
        'y NaN',
        'not a sample line',
        '',
      ].join('\n'),
    );
    assert.deepEqual(samples.slice(0, 3), [
      { name: 'x', labels: {}, value: 3 },
      { name: 'x', labels: { cell: 'a"b', path: 'c:\\d' }, value: 4 },
      { name: 'h_bucket', labels: { le: '+Inf' }, value: 9 },
    ]);
    assert.ok(Number.isNaN(samples[3].value));
    assert.equal(samples.length, 4);
    assert.equal(sumOf(samples, 'x'), 7);
    assert.equal(sumOf(samples, 'absent'), undefined);
    assert.deepEqual(histogramOf(samples, 'h'), [{ le: Infinity, count: 9 }]);
  });
});

describe('throughput from /metrics', () => {
  it('sums the manager and cells over HTTP, keeps a sample per scrape, and reports a target that fails', async () => {
    const manager = new Registry();
    let ready = 2;
    new Gauge({
      name: BINDINGS_READY,
      help: 'h',
      registers: [manager],
      collect() {
        this.set(ready);
      },
    });
    const latency = new Histogram({
      name: BINDING_READY_DURATION,
      help: 'h',
      buckets: [1, 5],
      registers: [manager],
    });
    latency.observe(0.5);
    latency.observe(3);
    latency.observe(30);
    const cells = [new Registry(), new Registry()];
    cells.forEach((registry, i) =>
      new Gauge({ name: CLAIMS_BOUND, help: 'h', registers: [registry] }).set(i + 1),
    );
    const urls = [await serve(manager), ...(await Promise.all(cells.map(serve)))];
    const gone = urls[2].replace('/metrics', '/gone');
    const throughput = new Throughput([...urls, gone]);

    await throughput.sample(10_000);
    ready = 5;
    await throughput.sample(11_000);
    const view = throughput.view();
    assert.deepEqual(view.times, [10, 11]);
    assert.deepEqual(view.bindingsReady, [2, 5]);
    assert.deepEqual(view.claimsBound, [3, 3]);
    assert.deepEqual(view.latency, { le: [1, 5], count: [1, 2], total: 3 });
    assert.deepEqual(
      view.targets.map((t) => t.error),
      [undefined, undefined, undefined, `${gone} answered 404`],
    );
  });

  it('records no sample when no target answers, and one scrape runs at a time', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const throughput = new Throughput(['http://127.0.0.1:9/metrics'], async () => {
      calls++;
      await gate;
      throw new Error('connection refused');
    });
    const first = throughput.sample(1000);
    const second = throughput.sample(2000);
    release();
    await Promise.all([first, second]);
    assert.equal(calls, 1, 'a sample asked for during a scrape is skipped');
    assert.deepEqual(throughput.view().times, [], 'a gap, not a zero');
    assert.equal(throughput.view().targets[0].error, 'connection refused');
  });
});
