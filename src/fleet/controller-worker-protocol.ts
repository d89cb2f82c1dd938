/**
 * What passes between the fleet's thread and a controller worker (controller-worker.ts): plain
 * data only — the sets to run, as serialised kubeconfigs, and the log settings — and three
 * messages.
 *
 * Guarantees: types and constants only, nothing that cannot be structured-cloned or transferred
 * (the in-process acceptor port). A worker posts
 * `started` once, after every set it was given has started; it answers each `stop` with one
 * `stopped` naming the same set once that set's `stop()` has settled (with its error's message if
 * it rejected).
 */
import type { ControllerSet } from './controller-sets.ts';
import type { WorkerConnections } from './in-process-transport.ts';

/** The log the worker's sets write to: the fleet log's level and bindings, on its file descriptor. */
export interface WorkerLog {
  level: string;
  bindings: Record<string, unknown>;
  /** The descriptor the fleet's log writes to (2, stderr, for `netpresence up`). */
  fd: number;
}

export interface ControllerWorkerData {
  /** The worker's name on its log lines (`thread`) and in the fleet's errors. */
  name: string;
  sets: ControllerSet[];
  log: WorkerLog;
  /**
   * How the sets' kubeconfigs' in-process origin is reached from the worker (its acceptor port is
   * transferred, not cloned); absent when they name TCP servers only.
   */
  connections?: WorkerConnections;
}

export type ToWorker = { kind: 'stop'; set: string };

export type FromWorker =
  { kind: 'started'; metricsUrls: string[] } | { kind: 'stopped'; set: string; error?: string };
