/**
 * The NoClusterFit message (propagation.md §4.4): `0/<N> clusters are available: <reasons>.`,
 * where each cluster not being deleted counts under the first filter that rules it out —
 * affinity, then not ready (`False` or missing), then unreachable (`Unknown`) — and the entries
 * `<count> <reason>` are sorted as strings.
 *
 * Guarantees: N counts every Cluster object, those being deleted included; with no cluster, or
 * only clusters being deleted, the reasons are `no cluster exists`.
 */
import type { Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import { bindingMessages, noClusterFitReasons } from '../apis/work/v1alpha2/binding-spec.ts';
import { findCondition } from '../runtime/conditions.ts';
import { passesAffinity, type AffinityTerm } from './affinity.ts';

export function noClusterFitMessage(clusters: readonly Cluster[], term: AffinityTerm | undefined): string {
  const counts = new Map<string, number>();
  for (const cluster of clusters) {
    if (cluster.metadata.deletionTimestamp) continue;
    const reason = firstRuledOut(cluster, term);
    if (reason) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  const live = clusters.filter((cluster) => !cluster.metadata.deletionTimestamp).length;
  const reasons =
    live === 0
      ? noClusterFitReasons.noCluster
      : [...counts]
          .map(([reason, count]) => `${count} ${reason}`)
          .sort()
          .join(', ');
  return bindingMessages.noClusterFit(clusters.length, reasons);
}

function firstRuledOut(cluster: Cluster, term: AffinityTerm | undefined): string | undefined {
  if (!passesAffinity(cluster, term)) return noClusterFitReasons.affinity;
  const ready = findCondition(cluster.status?.conditions, 'Ready')?.status;
  if (ready === 'False' || ready === undefined) return noClusterFitReasons.notReady;
  if (ready === 'Unknown') return noClusterFitReasons.unreachable;
  return undefined;
}
