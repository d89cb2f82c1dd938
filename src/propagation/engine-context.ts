/**
 * What every component of the propagation engine (propagation.md §0.1) reaches the hub and the
 * members through. The hub-side components (policy, detector, scheduler, binding sync, status)
 * and the member-side ones (execution, namespace sync, cluster) meet only in the hub's Work
 * objects and in this context.
 *
 * Guarantees: `members.plane(cluster)` answers the same PlaneAccess for a cluster until
 * `members.forget(name)` (its informers are shared, like a StaticPlane's), and throws an Error
 * whose message is the text a Work's `Applied=False` carries when the member cannot be reached
 * (embedded: `cluster X: no plane named X in the fleet`; standalone: the Cluster, its Secret and
 * the missing key).
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../client/types.ts';
import type { PlaneAccess, StaticPlane } from '../runtime/manager-context.ts';
import type { Clock } from '../runtime/clock.ts';
import type { RuntimeMetrics } from '../runtime/metrics.ts';
import type { KindResolver } from './kinds.ts';

export type EngineMode = 'embedded' | 'standalone';

/** How the engine reaches member clusters. */
export interface MemberDirectory {
  /** The member plane of `cluster`; throws with the Applied failure text when it cannot be reached. */
  plane(cluster: KubeObject): Promise<PlaneAccess>;
  /** Stops the member's informers and drops it (the Cluster is gone, or its access changed). */
  forget(clusterName: string): Promise<void>;
  close(): Promise<void>;
}

export interface EngineContext {
  mode: EngineMode;
  hub: StaticPlane;
  members: MemberDirectory;
  kinds: KindResolver;
  clock: Clock;
  log: Logger;
  metrics: RuntimeMetrics;
}
