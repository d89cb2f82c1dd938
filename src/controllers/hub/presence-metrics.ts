/**
 * The presence controller's own metrics: how many bindings are Ready now, and how long a binding
 * took from its creation to its first `Ready=True` (the dashboard's throughput charts read both).
 *
 * Guarantees: `netpresence_network_bindings_ready` is computed from the informer's store at each
 * scrape, so it is exact and never drifts; `netpresence_network_binding_ready_duration_seconds`
 * observes once per transition of a binding to `Ready=True` (a binding that regresses and turns
 * Ready again is observed again); both live on the manager's registry, never a global one.
 */
import { Gauge, Histogram, type Registry } from 'prom-client';
import type { NetworkBinding } from '../../apis/networking/v1alpha/network-binding.ts';

export const BINDINGS_READY = 'netpresence_network_bindings_ready';
export const BINDING_READY_DURATION = 'netpresence_network_binding_ready_duration_seconds';

/** From a second (one reconcile) to ten minutes (a cell that was down). */
export const READY_DURATION_BUCKETS = [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600];

export class PresenceMetrics {
  readonly readyDuration: Histogram;

  constructor(registry: Registry, bindings: () => NetworkBinding[]) {
    const registers = [registry];
    for (const name of [BINDINGS_READY, BINDING_READY_DURATION]) registry.removeSingleMetric(name);
    new Gauge({
      name: BINDINGS_READY,
      help: 'Number of NetworkBindings whose Ready condition is True',
      registers,
      collect() {
        this.set(bindings().filter((binding) => readyStatus(binding) === 'True').length);
      },
    });
    this.readyDuration = new Histogram({
      name: BINDING_READY_DURATION,
      help: 'Time from a NetworkBinding being created to its Ready condition turning True',
      buckets: READY_DURATION_BUCKETS,
      registers,
    });
  }

  /** Records that `binding` turned Ready at `nowMs`. */
  turnedReady(binding: NetworkBinding, nowMs: number): void {
    const created = Date.parse(binding.metadata.creationTimestamp ?? '');
    if (!Number.isNaN(created)) this.readyDuration.observe(Math.max(0, (nowMs - created) / 1000));
  }
}

export function readyStatus(binding: NetworkBinding): string | undefined {
  return binding.status?.conditions?.find((condition) => condition.type === 'Ready')?.status;
}
