/**
 * What the member side reads on a `Cluster` (propagation.md §1.2): readiness, sync mode and
 * whether it is being deleted.
 *
 * Guarantees: ready means a `Ready` condition with status `True` (False, Unknown and absent all
 * mean not ready); an absent `spec.syncMode` counts as Push.
 */
import { ClusterConditionType, type Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import { isConditionTrue } from '../../runtime/conditions.ts';

export function isClusterReady(cluster: Cluster): boolean {
  return isConditionTrue(cluster.status?.conditions, ClusterConditionType.Ready);
}

export function isPull(cluster: Cluster): boolean {
  return cluster.spec?.syncMode === 'Pull';
}

export function isDeleting(cluster: Cluster): boolean {
  return cluster.metadata.deletionTimestamp !== undefined;
}

/** The Ready condition's status, for triggers that wake on its change. */
export function readyStatus(cluster: Cluster): string | undefined {
  return cluster.status?.conditions?.find((c) => c.type === ClusterConditionType.Ready)?.status;
}
