import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { metricsText, processMetrics, RuntimeMetrics } from './metrics.ts';

const NAMES = [
  'controller_runtime_reconcile_total',
  'controller_runtime_reconcile_errors_total',
  'controller_runtime_terminal_reconcile_errors_total',
  'controller_runtime_reconcile_time_seconds',
  'controller_runtime_max_concurrent_reconciles',
  'workqueue_depth',
  'workqueue_adds_total',
  'workqueue_queue_duration_seconds',
  'workqueue_retries_total',
  'rest_client_request_duration_seconds',
];

describe('metrics', () => {
  it('registers controller-runtime names in the registry it is given', () => {
    const registry = new Registry();
    new RuntimeMetrics(registry);
    assert.deepEqual(
      registry
        .getMetricsAsArray()
        .map((metric) => (metric as unknown as { name: string }).name)
        .sort(),
      [...NAMES].sort(),
    );
  });

  it('keeps separate registries apart, so tests do not see each other', async () => {
    const one = new RuntimeMetrics();
    const two = new RuntimeMetrics();
    one.reconcileTotal.inc({ controller: 'presence', result: 'success' });
    assert.match(
      await one.text(),
      /controller_runtime_reconcile_total\{controller="presence",result="success"\} 1/,
    );
    assert.doesNotMatch(await two.text(), /controller="presence"/);
  });

  it('serves the process metrics as Prometheus text', async () => {
    assert.equal(processMetrics(), processMetrics());
    processMetrics().workqueueAdds.inc({ name: 'metrics-test' });
    const text = await metricsText();
    assert.match(text, /# TYPE workqueue_adds_total counter/);
    assert.match(text, /workqueue_adds_total\{name="metrics-test"\} 1/);
    assert.match(processMetrics().contentType, /^text\/plain/);
  });

  it('buckets reconcile time as controller-runtime does, from 5 ms to 60 s', async () => {
    const metrics = new RuntimeMetrics();
    metrics.reconcileTime.observe({ controller: 'presence' }, 0.3);
    const text = await metrics.text();
    assert.match(
      text,
      /controller_runtime_reconcile_time_seconds_bucket\{le="0.005",controller="presence"\} 0/,
    );
    assert.match(
      text,
      /controller_runtime_reconcile_time_seconds_bucket\{le="0.3",controller="presence"\} 1/,
    );
    assert.match(text, /controller_runtime_reconcile_time_seconds_bucket\{le="60",controller="presence"\} 1/);
  });
});
