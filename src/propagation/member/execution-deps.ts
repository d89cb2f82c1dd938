/**
 * What the execution controller (execution.ts) and the release of deleted Works (release.ts)
 * read and write through: the hub's Works and Clusters, and each member's kinds.
 *
 * Guarantees: `memberKind` resolves a manifest's kind against the member's discovery (so a kind
 * the member does not serve throws `KindNotServedError`, naming apiVersion and kind), reaches
 * the member through the directory (so an unreachable member throws the directory's error), and
 * starts watching that kind on the member for drift.
 */
import type { Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import type { Work } from '../../apis/work/v1alpha1/work.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';
import type { MemberDirectory } from '../engine-context.ts';
import type { KindResolver } from '../kinds.ts';
import type { MemberKind } from './apply.ts';
import type { MemberWatches } from './drift.ts';

export interface ExecutionDeps {
  works: ObjectStore<Work>;
  worksClient: ResourceClient<Work>;
  clusters: ObjectStore<Cluster>;
  memberKind(cluster: Cluster, manifest: KubeObject): Promise<MemberKind>;
  now(): number;
}

export function memberKindAccess(
  members: MemberDirectory,
  kinds: KindResolver,
  watches: MemberWatches,
): ExecutionDeps['memberKind'] {
  return async (cluster, manifest) => {
    const plane = await members.plane(cluster);
    const id = await kinds.resolve(plane.kubeConfig, manifest.apiVersion!, manifest.kind!);
    return watches.kind(cluster.metadata.name!, plane, id);
  };
}
