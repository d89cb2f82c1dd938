/**
 * The propagator (propagation.md §0.1): the engine in standalone mode beside a hub that runs no
 * Karmada, under the Lease `netpresence-propagator` in `karmada-system` (created if absent), with
 * a Prometheus endpoint and health probes.
 *
 * Guarantees:
 * - the engine runs only while this replica holds the Lease: it is started afresh for each term
 *   of leadership and stopped when the term ends, so two replicas never propagate at once; a term
 *   that ends while its engine still waits for the hub's first lists starts no controller;
 * - members are reached through their `Cluster` objects and Secrets (standalone access);
 * - `/healthz` answers 200 while the process serves; `/readyz` answers 200 on a standby replica
 *   and, on the leader, once its engine's hub informers have listed; `/metrics` serves the
 *   engine's metrics;
 * - `stop()` ends leadership (stopping the engine and releasing the Lease) and closes both
 *   listeners.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { resourceClient } from '../client/resource-client.ts';
import { systemClock } from '../runtime/clock.ts';
import { serveEndpoints } from '../runtime/endpoints.ts';
import type { LeaderElection } from '../runtime/leader-election.ts';
import { runWhileLeading } from '../runtime/run-while-leading.ts';
import type { LeadingProcess, LeadingProcessOptions } from './leading-process.ts';
import { RuntimeMetrics } from '../runtime/metrics.ts';
import { startEngine, type Engine } from '../propagation/engine.ts';
import { standaloneMembers } from '../propagation/member/index.ts';

export const PROPAGATOR_LEASE = 'netpresence-propagator';
export const PROPAGATOR_LEASE_NAMESPACE = 'karmada-system';

export interface PropagatorOptions extends LeadingProcessOptions {
  hub: KubeConfig;
}

export interface Propagator extends LeadingProcess {
  /** The engine of the current term of leadership, if any. */
  engine(): Engine | undefined;
}

export async function startPropagator(options: PropagatorOptions): Promise<Propagator> {
  const clock = options.clock ?? systemClock;
  const { log } = options;
  const metrics = new RuntimeMetrics();
  let engine: Engine | undefined;
  let leading = false;

  const endpoints = await serveEndpoints({
    metricsAddr: options.metricsAddr,
    healthAddr: options.healthAddr,
    metrics,
    ready: () => !leading || engine !== undefined,
    notReadyMessage: 'the propagation engine is starting',
  });

  // The term's work is the engine, started once leadership is taken and stopped when it ends; a
  // start still waiting for the hub's lists when the term ends gives up (its signal).
  const engineWork = (term: AbortSignal) => ({
    async start() {
      engine = await startEngine({
        mode: 'standalone',
        hub: options.hub,
        members: (hub) => standaloneMembers({ hub, clock, log }),
        log,
        clock,
        metrics,
        signal: term,
      });
    },
    async stop() {
      const started = engine;
      engine = undefined;
      await started?.stop();
    },
  });
  const election: LeaderElection = runWhileLeading((term) => [engineWork(term)], {
    plane: { client: (id) => resourceClient(options.hub, id) },
    name: PROPAGATOR_LEASE,
    namespace: PROPAGATOR_LEASE_NAMESPACE,
    identity: options.identity,
    log,
    clock,
    timing: options.leaseTiming,
    what: 'the propagation engine',
    onStartedLeading: () => (leading = true),
    onStoppedLeading: () => (leading = false),
  });
  log.info(
    { metricsUrl: endpoints.metricsUrl, healthUrl: endpoints.healthUrl },
    'netpresence propagator started',
  );

  return {
    metricsUrl: endpoints.metricsUrl,
    healthUrl: endpoints.healthUrl,
    isLeader: () => election.isLeader(),
    engine: () => engine,
    async stop() {
      await election.stop();
      await endpoints.close();
    },
  };
}
