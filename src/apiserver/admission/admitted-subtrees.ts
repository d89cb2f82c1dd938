/**
 * Admitted subtrees: the values schema admission has already found clean under a schema node, so
 * that a write carrying one of them again, unchanged, need not prune, default and validate it
 * again. Most writes of a custom resource change one side of it: a `/status` write leaves the
 * spec as stored, a spec update the status, and the write path shares what a write does not
 * change with the stored object (copy-on-write merge patches, shallow copies), so the unchanged
 * side reaches admission as the very object admitted before.
 *
 * Guarantees:
 * - `value` is recorded under `node` only after an admission in which schema validation, list
 *   types and every `x-kubernetes-validations` rule in it found nothing, and in which pruning kept
 *   it whole (the same object back, no field dropped or reported) and defaulting returned it
 *   unchanged (the same object back) — or, for what a create's defaulting filled in, pruning and
 *   defaulting the admitted value once more gave it back itself. Each of those steps is a
 *   function of the value and its node alone for a subtree under the object's root (a property
 *   of the root, or deeper): field paths change only the wording of errors, and there are none.
 *   So skipping them for a recorded value gives the answer running them gives.
 * - Rules that read `oldSelf` (transition rules) depend on the old object too: they are never
 *   skipped (validation-rules.ts evaluates them in recorded subtrees).
 * - Nodes are keyed by identity: a changed CRD has new schema objects, and nothing recorded under
 *   the old ones applies to it. References are weak; a record keeps nothing alive.
 * Assumes: a recorded value is never mutated (stored objects and what writes share with them are
 * immutable, writes.ts).
 */
import type { SchemaNode } from './schema-node.ts';

const admittedUnder = new WeakMap<object, SchemaNode>();

/** Whether `value` was found clean under `node` by an earlier admission (see the module doc). */
export function isAdmitted(node: SchemaNode | undefined, value: unknown): boolean {
  return (
    node !== undefined && typeof value === 'object' && value !== null && admittedUnder.get(value) === node
  );
}

/**
 * Records that `value` passed admission under `node` unchanged. Only schema admission calls it,
 * and only for a value that satisfied every condition of the module doc.
 */
export function recordAdmitted(node: SchemaNode, value: unknown): void {
  if (typeof value === 'object' && value !== null) admittedUnder.set(value, node);
}
