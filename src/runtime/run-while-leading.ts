/**
 * Running work — controllers, the propagation engine — for exactly as long as this process holds
 * a Lease. `netpresence manager` (its hub-resident controllers), `netpresence cell` and
 * `netpresence propagator` all lead this one way.
 *
 * Guarantees: each term of leadership builds its work afresh (nothing of a lost term is reused)
 * and hands it the term's signal, aborted when the term ends, so a piece whose start may outlast
 * the term gives up on it; it waits for `ready()` (the informers the work reads have listed), then
 * starts each piece in the order given — none if the term ended meanwhile; when the term ends (the Lease is lost, or
 * `stop()`), every piece that was built is stopped, in the same order, a failing stop not
 * keeping the others from stopping. The Lease is released only after that (leader-election.ts),
 * so two processes never run the work at once.
 */
import type { KubeObject, ResourceClient, ResourceId } from '../client/types.ts';
import {
  LEASES,
  NAMESPACES,
  defaultCandidateIdentity,
  runLeaderElection,
  termEnded,
  type Lease,
  type LeaderElection,
  type LeaderElectionOptions,
} from './leader-election.ts';

/** One piece of a term's work: a Controller, or anything started and stopped like one. */
export interface TermWork {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The plane that keeps the Lease (and its namespace). */
export interface LeasePlane {
  client<T extends KubeObject>(id: ResourceId): ResourceClient<T>;
}

export interface RunWhileLeadingOptions extends Omit<
  LeaderElectionOptions,
  'client' | 'namespacesClient' | 'identity' | 'onStartedLeading' | 'onStoppedLeading'
> {
  /** Where the Lease is kept; its namespace is created there if absent. */
  plane: LeasePlane;
  /** The Lease holder identity; default `<hostname>_<random>`. */
  identity?: string;
  /** Resolves once what the work reads is ready; default at once. */
  ready?: () => Promise<unknown>;
  /** What leads, for the log line when a term ends: e.g. 'cell controllers'. */
  what: string;
  /** Called when a term starts, before anything is built. */
  onStartedLeading?: () => void;
  /** Called when a term ends, before its work has stopped. */
  onStoppedLeading?: () => void;
}

export function runWhileLeading(
  build: (term: AbortSignal) => TermWork[],
  options: RunWhileLeadingOptions,
): LeaderElection {
  const { plane, identity, ready, what, onStartedLeading, onStoppedLeading, ...election } = options;
  return runLeaderElection({
    ...election,
    client: plane.client<Lease>(LEASES),
    namespacesClient: plane.client(NAMESPACES),
    identity: identity ?? defaultCandidateIdentity(),
    async onStartedLeading(signal) {
      onStartedLeading?.();
      const work = build(signal);
      try {
        await ready?.();
        if (!signal.aborted) for (const piece of work) await piece.start();
        await termEnded(signal);
      } finally {
        for (const piece of work) await piece.stop().catch(() => undefined);
      }
    },
    onStoppedLeading() {
      onStoppedLeading?.();
      election.log.info(`no longer leading; ${what} stop`);
    },
  });
}
