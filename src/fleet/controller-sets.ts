/**
 * The fleet's controller sets as plain data, and how one is started from it: the manager, the
 * propagation engine, one `netpresence cell` per cell, the simulated data plane and the platform
 * stand-ins that need only the API (worker-stand-ins.ts), each described only by the
 * kubeconfigs (serialised, with their tokens) of the planes it reaches, so that a description
 * crosses to a worker thread (controller-worker.ts) and the set runs there as its own identity
 * over the same real HTTP clients it uses against real clusters.
 *
 * Guarantees: a started set's `stop()` ends its leadership and closes its informers and
 * listeners (the processes' own guarantees); the manager and each cell serve `/metrics` on a
 * loopback port of their own, the engine, the data plane and the stand-ins count into the
 * `metrics` they are given.
 * Caveat: sets run on the system clock: nothing here takes a clock, as a worker cannot be handed one.
 */
import type { Logger } from 'pino';
import { startCell } from '../processes/cell.ts';
import { startManager } from '../processes/manager.ts';
import { startEngine } from '../propagation/engine.ts';
import { embeddedMembers } from '../propagation/member/index.ts';
import { systemClock } from '../runtime/clock.ts';
import type { RuntimeMetrics } from '../runtime/metrics.ts';
import { startDataPlane, type DataPlaneSet } from './data-plane.ts';
import { kubeConfigOf, type SerialKubeConfig } from './plane-kubeconfig.ts';
import { startWorkerStandIns, type StandInsSet } from './worker-stand-ins.ts';

/** The manager's Lease identity: fixed, so a restart takes the Lease back at once. */
export const MANAGER_LEASE_IDENTITY = 'netpresence-up';

/** Where the manager and the cells serve `/metrics`, for the dashboard's throughput. */
export const LOOPBACK_METRICS = { host: '127.0.0.1', port: 0 };

export type ControllerSet =
  | { kind: 'manager'; hub: SerialKubeConfig; platform: SerialKubeConfig }
  | { kind: 'engine'; hub: SerialKubeConfig; members: Record<string, SerialKubeConfig> }
  | { kind: 'cell'; name: string; cell: SerialKubeConfig; ipam: SerialKubeConfig; hub: SerialKubeConfig }
  | DataPlaneSet
  | StandInsSet;

export interface RunningSet {
  /** The set's own `/metrics` URL, when it serves one. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

/** `manager`, `engine` or `cell/<name>`: how the fleet names a set when it stops it. */
export function setId(set: ControllerSet): string {
  return set.kind === 'cell' ? `cell/${set.name}` : set.kind;
}

/**
 * Starts one set; `metrics` receives the engine's, the data plane's and the stand-ins' controller
 * metrics.
 */
export async function startControllerSet(
  set: ControllerSet,
  log: Logger,
  metrics: RuntimeMetrics,
): Promise<RunningSet> {
  const clock = systemClock;
  switch (set.kind) {
    case 'manager':
      return startManager({
        hub: kubeConfigOf(set.hub),
        platform: kubeConfigOf(set.platform),
        identity: MANAGER_LEASE_IDENTITY,
        metricsAddr: LOOPBACK_METRICS,
        log: log.child({ component: 'manager' }),
        clock,
      });
    case 'engine': {
      const members = new Map(
        Object.entries(set.members).map(([plane, serial]) => [plane, kubeConfigOf(serial)]),
      );
      return startEngine({
        mode: 'embedded',
        hub: kubeConfigOf(set.hub),
        members: embeddedMembers({ kubeConfigFor: (plane) => members.get(plane), clock, log }),
        metrics,
        log: log.child({ component: 'propagator' }),
        clock,
      });
    }
    case 'cell':
      return startCell({
        cell: kubeConfigOf(set.cell),
        ipam: kubeConfigOf(set.ipam),
        hub: kubeConfigOf(set.hub),
        cellName: set.name,
        metricsAddr: LOOPBACK_METRICS,
        log: log.child({ component: set.name }),
        clock,
        name: set.name,
        // One replica per cell inside one process: nothing to elect.
        leaderElection: false,
      });
    case 'dataPlane':
      return startDataPlane(set, clock, log, metrics);
    case 'standIns':
      return startWorkerStandIns(set, log, metrics);
  }
}
