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
 *   entry someone else wrote is never in the patch, so a merge patch never removes it;
 * - `unlessStale` ends a reconcile whose write was refused as stale without an error: a 409
 *   Conflict (the object changed after the copy the write was computed from) or a 404 (it is
 *   gone) means the watch event of the newer state is on its way and wakes the key again, to be
 *   judged from what is current.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { isConflict, isNotFound } from '../client/errors.ts';
import type { KubeObject, ResourceClient } from '../client/types.ts';

/** Runs a reconcile; a stale write (409 Conflict, 404) ends it quietly, any other error is thrown. */
export async function unlessStale<R>(reconcile: Promise<R>, log: Logger): Promise<R | undefined> {
  try {
    return await reconcile;
  } catch (err) {
    if (!isConflict(err) && !isNotFound(err)) throw err;
    log.debug({ err }, 'a write was based on a stale copy; the newer state will wake this key');
    return undefined;
  }
}

type WithStatus = KubeObject & { status?: object };

/** Merge-patches the given `status` keys when any differs; returns the object as it now stands. */
export async function patchStatus<T extends WithStatus>(
  client: ResourceClient<T>,
  object: T,
  status: Record<string, unknown>,
): Promise<T> {
  const held = (object.status ?? {}) as Record<string, unknown>;
  const changed = Object.entries(status).filter(([key, value]) => !isDeepStrictEqual(held[key], value));
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
