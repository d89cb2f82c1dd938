/**
 * Stranded deletions: on load, every stored object that is being deleted and has no finalizer
 * left is removed, as the write that removed its last finalizer would have removed it.
 *
 * Guarantees: after a plane opens, no object other than a Namespace is deleting without
 * finalizers. Today's writes remove such an object in the same transaction as the update that
 * drops its last finalizer (scenario 133); this heals logs written by older versions, which
 * committed the two apart and could be killed in between.
 * Caveat: Namespaces are left to namespace termination, whose `kubernetes` finalizer lives in
 * `spec.finalizers`, not in metadata.
 */
import { objectKey } from '../resources/resource-type.ts';
import type { Change, RevisionLog } from '../storage/revision-log.ts';
import { NAMESPACE_STORAGE } from './namespace-termination.ts';

export function removeStrandedDeletions(log: RevisionLog): number {
  const removals: Change[] = [];
  for (const resource of log.resources()) {
    if (resource === NAMESPACE_STORAGE) continue;
    for (const object of log.list(resource)) {
      const { deletionTimestamp, finalizers, namespace, name } = object.metadata;
      if (!deletionTimestamp || (finalizers ?? []).length > 0) continue;
      removals.push({ resource, key: objectKey(namespace, name!) });
    }
  }
  if (removals.length > 0) log.transact(removals);
  return removals.length;
}
