/**
 * Releasing a Work that is being deleted (propagation.md §7.1 step 2, §7.2, §7.4, §7.5, §7.7):
 * what happens to its member copy before the Work's finalizer `karmada.io/execution-controller`
 * comes off.
 *
 * Guarantees:
 * - a managed copy is deleted with one ordinary DELETE (`propagationPolicy: Background`, guarded
 *   by the copy's uid), and the finalizer is removed as soon as that call returns — never
 *   waiting for the copy to disappear, so member finalizers hold the copy, not the Work;
 * - with `spec.preserveResourcesOnDeletion`, the copy is instead written once through the update
 *   path from the preserved manifest (preserve.ts) and left unmanaged;
 * - an unmanaged copy is never touched (no DELETE, no strip), a copy already terminating is not
 *   deleted again, and an absent copy or a kind the member does not serve releases at once;
 * - on a cluster that is not ready the Work waits (the Cluster's Ready change wakes it), unless
 *   the Cluster is itself being deleted, is gone, or is in Pull mode: then the Work is released
 *   without touching the member.
 */
import type { Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import { WORK_FINALIZER, type Work } from '../../apis/work/v1alpha1/work.ts';
import type { KubeObject } from '../../client/types.ts';
import { hasFinalizer, removeFinalizer } from '../../runtime/finalizer.ts';
import type { Logger } from '../../runtime/logging.ts';
import { KindNotServedError } from '../kinds.ts';
import { writeOver } from './apply.ts';
import { isClusterReady, isDeleting, isPull } from './cluster-state.ts';
import { isManaged } from './conflict.ts';
import type { ExecutionDeps } from './execution-deps.ts';
import { manifestOf } from './manifest.ts';
import { preservedManifest } from './preserve.ts';

export async function release(
  work: Work,
  cluster: Cluster | undefined,
  deps: ExecutionDeps,
  log: Logger,
): Promise<void> {
  if (!hasFinalizer(work, WORK_FINALIZER)) return;
  const untouched = !cluster || isPull(cluster) || (isDeleting(cluster) && !isClusterReady(cluster));
  if (!untouched) {
    if (!isClusterReady(cluster)) return;
    const manifest = manifestOf(work);
    if (manifest) await settleCopy(work, manifest, cluster, deps, log);
  }
  await removeFinalizer(deps.worksClient, work, WORK_FINALIZER);
}

/** Deletes or preserves the copy of `manifest` on `cluster`, as the Work says. */
async function settleCopy(
  work: Work,
  manifest: KubeObject,
  cluster: Cluster,
  deps: ExecutionDeps,
  log: Logger,
): Promise<void> {
  const access = await deps.memberKind(cluster, manifest).catch((err: unknown) => {
    if (err instanceof KindNotServedError) return undefined;
    throw err;
  });
  if (!access) return;
  const { namespace, name } = manifest.metadata;
  const copy = await access.client.get(name!, namespace);
  if (!copy || !isManaged(copy)) return;
  if (work.spec?.preserveResourcesOnDeletion === true) {
    await writeOver(copy, preservedManifest(manifest), access, cluster.metadata.name!);
    log.info({ cluster: cluster.metadata.name, namespace, name }, 'preserved the member copy, unmanaged');
    return;
  }
  if (copy.metadata.deletionTimestamp) return;
  await access.client.delete(name!, namespace, {
    propagationPolicy: 'Background',
    preconditions: { uid: copy.metadata.uid },
  });
}
