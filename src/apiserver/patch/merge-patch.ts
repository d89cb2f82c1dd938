/**
 * JSON merge patch (RFC 7386, `application/merge-patch+json`), and the two-way diff that makes one.
 *
 * Guarantees: a patch object merges into the target field by field (a target that is not an
 * object counts as `{}`), a `null` field deletes, and any other value — arrays included — replaces
 * the target's value whole; a patch that is not an object replaces the whole target. Inputs are
 * never mutated. The result is built copy-on-write: every object on a path the patch changes is
 * new, values taken from the patch are copies, and what the patch does not touch is the target's
 * own value, shared (the server's stored objects are immutable, so sharing them is safe and
 * spares a deep copy of the whole object per patch).
 * `applyOwnedMergePatch` is the same merge for a patch its caller hands over (a request body just
 * decoded, used for nothing else): the values it takes from the patch are the patch's own, not
 * copies, and the patch must not be used or changed afterwards.
 * Caveat: a merge patch cannot set a field to `null` (RFC 7386 §2), so
 * `applyMergePatch(a, createMergePatch(a, b))` equals `b` for every `b` that holds no null.
 */
import { clone, deepEqual, isPlainObject } from '../objects.ts';
import { fieldOf, setField, type JsonObject } from './json-object.ts';

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  return merge(target, patch, false);
}

/** `applyMergePatch` for a patch handed over: its values become the result's, uncopied. */
export function applyOwnedMergePatch(target: unknown, patch: unknown): unknown {
  return merge(target, patch, true);
}

/** RFC 7386 §2 `MergePatch`: a new object for every object the patch reaches, `target` untouched. */
function merge(target: unknown, patch: unknown, owned: boolean): unknown {
  if (!isPlainObject(patch)) return owned ? patch : clone(patch);
  // Spread copies own fields as data (a field named `__proto__` stays a field).
  const merged: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete merged[name];
    else setField(merged, name, merge(fieldOf(merged, name), value, owned));
  }
  return merged;
}

/** The smallest merge patch that turns `original` into `modified`; `{}` when they are equal objects. */
export function createMergePatch(original: unknown, modified: unknown): unknown {
  if (!isPlainObject(original) || !isPlainObject(modified)) return clone(modified);
  const patch: JsonObject = {};
  for (const name of Object.keys(original)) {
    if (!Object.hasOwn(modified, name)) setField(patch, name, null);
  }
  for (const [name, value] of Object.entries(modified)) {
    const before = fieldOf(original, name);
    if (before !== undefined && deepEqual(before, value)) continue;
    const change =
      isPlainObject(before) && isPlainObject(value) ? createMergePatch(before, value) : clone(value);
    setField(patch, name, change);
  }
  return patch;
}
