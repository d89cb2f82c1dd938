/**
 * Prometheus metrics of controllers and their workqueues, named and labelled as
 * controller-runtime names them, so dashboards and alerts written for Go operators read ours.
 *
 * Guarantees: one RuntimeMetrics per registry; `processMetrics()` is the process's own, created on
 * first use in a private Registry (never prom-client's global one, so nothing else can collide
 * with these names); tests pass their own `new RuntimeMetrics()` and read it without interference.
 * `rest_client_request_duration_seconds` (client-go's) is filled only once `observeClientRequests()`
 * makes a RuntimeMetrics its thread's observer: the process's or the thread's own, not a controller's.
 * `result` of `controller_runtime_reconcile_total` is one of RECONCILE_RESULTS: controller-runtime's
 * four, and `stale` for a write that lost a race (runtime/controller.ts has the table).
 * Every metric here, touched on every enqueue, reconcile and request, is hot-metrics.ts's.
 */
import { Registry } from 'prom-client';
import { HotCounter, HotGauge, HotHistogram } from './hot-metrics.ts';
import { observeRequestLatency } from '../client/request-latency.ts';

export const RECONCILE_RESULTS = ['success', 'error', 'requeue', 'requeue_after', 'stale'] as const;
export type ReconcileResult = (typeof RECONCILE_RESULTS)[number];

/** controller-runtime's buckets for reconcile time, in seconds. */
const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** client-go's buckets for a request's latency, in seconds. */
const REQUEST_LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** client-go's buckets for time in queue: 10 ns to 1000 s by factors of ten. */
const QUEUE_DURATION_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000];

export class RuntimeMetrics {
  readonly reconcileTotal: HotCounter<'controller' | 'result'>;
  readonly reconcileErrors: HotCounter<'controller'>;
  readonly terminalReconcileErrors: HotCounter<'controller'>;
  readonly reconcileTime: HotHistogram<'controller'>;
  readonly maxConcurrentReconciles: HotGauge<'controller'>;
  readonly workqueueDepth: HotGauge<'name'>;
  readonly workqueueAdds: HotCounter<'name'>;
  readonly workqueueQueueDuration: HotHistogram<'name'>;
  readonly workqueueRetries: HotCounter<'name'>;
  readonly restClientRequestDuration: HotHistogram<'verb' | 'host'>;

  constructor(readonly registry: Registry = new Registry()) {
    const registers = [registry];
    this.reconcileTotal = new HotCounter(
      'controller_runtime_reconcile_total',
      'Total number of reconciliations per controller',
      ['controller', 'result'],
      registers,
    );
    this.reconcileErrors = new HotCounter(
      'controller_runtime_reconcile_errors_total',
      'Total number of reconciliation errors per controller',
      ['controller'],
      registers,
    );
    this.terminalReconcileErrors = new HotCounter(
      'controller_runtime_terminal_reconcile_errors_total',
      'Total number of terminal reconciliation errors per controller',
      ['controller'],
      registers,
    );
    this.reconcileTime = new HotHistogram(
      'controller_runtime_reconcile_time_seconds',
      'Length of time per reconciliation per controller',
      ['controller'],
      RECONCILE_TIME_BUCKETS,
      registers,
    );
    // Summed over the started controllers of one name (a fleet runs one per cell); absent until
    // the first starts, 0 once all have stopped: it tells that a process's controllers run.
    this.maxConcurrentReconciles = new HotGauge(
      'controller_runtime_max_concurrent_reconciles',
      'Maximum number of concurrent reconciles per controller',
      ['controller'],
      registers,
    );
    this.workqueueDepth = new HotGauge('workqueue_depth', 'Current depth of workqueue', ['name'], registers);
    this.workqueueAdds = new HotCounter(
      'workqueue_adds_total',
      'Total number of adds handled by workqueue',
      ['name'],
      registers,
    );
    this.workqueueQueueDuration = new HotHistogram(
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      ['name'],
      QUEUE_DURATION_BUCKETS,
      registers,
    );
    this.workqueueRetries = new HotCounter(
      'workqueue_retries_total',
      'Total number of retries handled by workqueue',
      ['name'],
      registers,
    );
    this.restClientRequestDuration = new HotHistogram(
      'rest_client_request_duration_seconds',
      'Request latency in seconds. Broken down by verb, and host.',
      ['verb', 'host'],
      REQUEST_LATENCY_BUCKETS,
      registers,
    );
  }

  /**
   * Makes these metrics the ones this thread's clients report their requests' latency to
   * (client/request-latency.ts); returns a function that stops it.
   */
  observeClientRequests(): () => void {
    return observeRequestLatency((verb, host, seconds) =>
      this.restClientRequestDuration.observe({ verb, host }, seconds),
    );
  }

  /** The exposition text for a /metrics endpoint. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The Content-Type to serve `text()` with. */
  get contentType(): string {
    return this.registry.contentType;
  }
}

let processWide: RuntimeMetrics | undefined;

/** The metrics of this process, shared by every controller that is not given its own. */
export function processMetrics(): RuntimeMetrics {
  processWide ??= new RuntimeMetrics();
  return processWide;
}

/** The exposition text of `metrics` (by default the process's) for a /metrics endpoint. */
export function metricsText(metrics: RuntimeMetrics = processMetrics()): Promise<string> {
  return metrics.text();
}
