/**
 * Placement (propagation.md §3): the clusters a binding is scheduled to — every feasible cluster,
 * sorted by name — and, for `clusterAffinities`, the term in use.
 *
 * Guarantees:
 * - a cluster is feasible when it exists, is not being deleted, passes the affinity filter, and
 *   is ready or already placed (an unready cluster is never newly selected, and keeps its
 *   placement while the affinity holds);
 * - `clusterAffinity` wins when both it and `clusterAffinities` are set;
 * - `clusterAffinities` is first fit from the observed term, never returning to an earlier one;
 *   it starts from the first term only when the observed name is empty or names no term;
 * - no feasible cluster → `fit: false` with the NoClusterFit message of the first term tried,
 *   and the observed term unchanged.
 */
import type { Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import type { Placement } from '../apis/policy/v1alpha1/policy-spec.ts';
import { isConditionTrue } from '../runtime/conditions.ts';
import { passesAffinity, type AffinityTerm } from './affinity.ts';
import { noClusterFitMessage } from './no-cluster-fit.ts';

export type Schedule =
  { fit: true; clusters: string[]; affinityName?: string } | { fit: false; message: string };

export interface ScheduleInput {
  placement: Placement | undefined;
  /** `spec.clusters` names as they stand. */
  placed: readonly string[];
  /** `status.schedulerObservingAffinityName`. */
  observedAffinityName: string | undefined;
  clusters: readonly Cluster[];
}

export function schedule(input: ScheduleInput): Schedule {
  const { placement } = input;
  const terms = placement?.clusterAffinities ?? [];
  if (placement?.clusterAffinity || terms.length === 0) {
    const term = placement?.clusterAffinity;
    const clusters = feasible(input, term);
    return clusters.length > 0
      ? { fit: true, clusters }
      : { fit: false, message: noClusterFitMessage(input.clusters, term) };
  }
  const observed = terms.findIndex((term) => term.affinityName === input.observedAffinityName);
  const start = input.observedAffinityName && observed >= 0 ? observed : 0;
  for (let index = start; index < terms.length; index++) {
    const clusters = feasible(input, terms[index]);
    if (clusters.length > 0) return { fit: true, clusters, affinityName: terms[index].affinityName };
  }
  return { fit: false, message: noClusterFitMessage(input.clusters, terms[start]) };
}

function feasible(input: ScheduleInput, term: AffinityTerm | undefined): string[] {
  return input.clusters
    .filter(
      (cluster) =>
        !cluster.metadata.deletionTimestamp &&
        passesAffinity(cluster, term) &&
        (isReady(cluster) || input.placed.includes(cluster.metadata.name!)),
    )
    .map((cluster) => cluster.metadata.name!)
    .sort();
}

export function isReady(cluster: Cluster): boolean {
  return isConditionTrue(cluster.status?.conditions, 'Ready');
}
