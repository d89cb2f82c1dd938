/**
 * Standalone access changes (propagation.md §1.2): when a hub Secret a Cluster's `spec.secretRef`
 * names changes, every Work of that Cluster is reconciled again, so a lost or restored credential
 * shows on the Works' `Applied` at once rather than at the next template edit.
 *
 * Guarantees: only the Works of Clusters referencing the changed Secret are woken; the member
 * directory re-reads the Secret itself when asked for the plane (members.ts).
 */
import type { Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import { executionSpaceName, type Work } from '../../apis/work/v1alpha1/work.ts';
import type { KubeObject, ResourceId } from '../../client/types.ts';
import type { PlaneAccess } from '../../runtime/manager-context.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';
import { watches, type Trigger } from '../../runtime/triggers.ts';
import type { WorkKey } from './work-key.ts';

export const SECRETS: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
};

/** The Clusters whose `spec.secretRef` names `secret`. */
export function clustersUsing(clusters: ObjectStore<Cluster>, secret: KubeObject): Cluster[] {
  return clusters
    .list()
    .filter(
      (cluster) =>
        cluster.spec?.secretRef?.namespace === secret.metadata.namespace &&
        cluster.spec?.secretRef?.name === secret.metadata.name,
    );
}

export function secretTrigger(
  hub: PlaneAccess,
  clusters: ObjectStore<Cluster>,
  works: ObjectStore<Work>,
): Trigger<WorkKey> {
  return watches(hub.informer(SECRETS), (event) =>
    clustersUsing(clusters, event.object).flatMap((cluster) =>
      works
        .list(executionSpaceName(cluster.metadata.name!))
        .map((work) => ({ namespace: work.metadata.namespace!, name: work.metadata.name! })),
    ),
  );
}
