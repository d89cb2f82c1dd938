/**
 * Writing claim keys (propagation.md §2.4): a merge patch of `metadata.labels` and
 * `metadata.annotations` only, guarded by the object's resourceVersion, so a claim computed from
 * a stale copy is refused (409) and retried from the newer one.
 *
 * Guarantees: nothing is sent when the object already holds the patch; removal of a claim is
 * sent only while the object's claim label still holds the id being removed.
 */
import type { KubeObject, ResourceClient } from '../client/types.ts';
import {
  claimIdLabel,
  effectivePatch,
  unclaimPatch,
  type MetadataPatch,
  type PolicyTier,
} from './policy-claim.ts';

export async function writeMetadata<T extends KubeObject>(
  client: ResourceClient<T>,
  object: T,
  patch: MetadataPatch,
): Promise<T> {
  const change = effectivePatch(object, patch);
  if (!change) return object;
  return client.patchMerge(object.metadata.name!, object.metadata.namespace, {
    metadata: {
      resourceVersion: object.metadata.resourceVersion,
      labels: change.labels,
      annotations: change.annotations,
    },
  });
}

/** Removes the `tier` claim keys from `object` if its claim label still holds `id`. */
export async function removeClaim<T extends KubeObject>(
  client: ResourceClient<T>,
  object: T | undefined,
  tier: PolicyTier,
  id: string,
): Promise<void> {
  if (!object || object.metadata.labels?.[claimIdLabel(tier)] !== id) return;
  await writeMetadata(client, object, unclaimPatch(tier));
}
