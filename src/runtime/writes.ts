/**
 * Writing only what changed (controllers.md §0): the patches a controller sends for the keys it
 * owns, computed against the object as its store holds it.
 *
 * Guarantees:
 * - `patchStatus` sends nothing when every given status key already holds the given value
 *   (compared deeply, key order ignored), and otherwise one merge patch of exactly those keys
 *   to the status subresource, guarded by the object's resourceVersion so that a status computed
 *   from a stale copy is refused (409) instead of overwriting a newer one;
 * - `changedLabels` and `changedEntries` name only the keys a controller owns: a label or map
 *   entry someone else wrote is never in the patch, so a merge patch never removes it.
 * A write refused as stale (409, 404) is thrown on: runtime/controller.ts decides what follows.
 */
import { jsonEqual } from '../apis/common/json-equal.ts';
import type { KubeObject, ResourceClient } from '../client/types.ts';

type WithStatus = KubeObject & { status?: object };

/** Merge-patches the given `status` keys when any differs; returns the object as it now stands. */
export async function patchStatus<T extends WithStatus>(
  client: ResourceClient<T>,
  object: T,
  status: Record<string, unknown>,
): Promise<T> {
  const held = (object.status ?? {}) as Record<string, unknown>;
  const changed = Object.entries(status).filter(([key, value]) => !jsonEqual(held[key], value));
  if (changed.length === 0) return object;
  return client.patchMerge(
    object.metadata.name!,
    object.metadata.namespace,
    { metadata: { resourceVersion: object.metadata.resourceVersion }, status: Object.fromEntries(changed) },
    { subresource: 'status' },
  );
}

/** The owned labels whose value differs from the object's; undefined when none does. */
export function changedLabels(
  object: KubeObject | undefined,
  desired: Record<string, string>,
): Record<string, string> | undefined {
  const held = object?.metadata.labels ?? {};
  const changed = Object.entries(desired).filter(([key, value]) => held[key] !== value);
  return changed.length === 0 ? undefined : Object.fromEntries(changed);
}

/**
 * A merge patch turning map `held` into `desired` when this writer owns the whole map: changed
 * and new entries, and `null` for entries to drop; undefined when they are equal.
 */
export function changedEntries(
  held: Record<string, string> | undefined,
  desired: Record<string, string>,
): Record<string, string | null> | undefined {
  const current = held ?? {};
  const patch: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(desired)) if (current[key] !== value) patch[key] = value;
  for (const key of Object.keys(current)) if (!(key in desired)) patch[key] = null;
  return Object.keys(patch).length === 0 ? undefined : patch;
}
