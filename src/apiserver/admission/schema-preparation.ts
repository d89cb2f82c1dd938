/**
 * Schema preparation: what schema admission compiles for a custom kind (its JSON schema
 * validators and its `x-kubernetes-validations` rules), compiled once the kind is served rather
 * than by its first write. Without it, the first binding on a new fleet paid about 190 ms of
 * compiling on the server's thread for the kinds its chain writes first (bench/README.md, "A
 * kind compiled when it is served, and the side a create's defaults settle").
 *
 * Guarantees:
 * - `prepareSoon(schema)` returns at once; the schemas it is given are compiled one per turn of
 *   the event loop (`setImmediate`), after the I/O already waiting, in the order given. A schema
 *   prepared or waiting already is not taken again: the planes of a fleet share their CRDs'
 *   schema objects (one per plane kind), so a thousand project planes queue each schema once.
 * - It compiles into the caches the write path reads (validate.ts, validation-rules.ts), exactly
 *   what that path would compile at its first use: no answer to any write changes, and a write
 *   that comes before the preparation compiles what it needs itself, as before.
 * - A schema that does not compile is left as it is: every write of the kind reports the error,
 *   as before. Waiting schemas never keep the process alive.
 */
import type { SchemaNode } from './schema-node.ts';
import { prepareValidation } from './validate.ts';
import { prepareRules } from './validation-rules.ts';

const seen = new WeakSet<SchemaNode>();
const waiting: SchemaNode[] = [];

/** Compiles `schema`'s admission in a turn of its own, unless it was given before. */
export function prepareSoon(schema: SchemaNode): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  waiting.push(schema);
  if (waiting.length === 1) setImmediate(prepareNext).unref();
}

/** Compiles now what admitting an object of `schema` compiles at its first use. */
export function prepareSchema(schema: SchemaNode): void {
  try {
    prepareValidation(schema);
  } catch {
    // The kind's writes compile it again and report why it fails.
  }
  prepareRules(schema);
}

function prepareNext(): void {
  const schema = waiting.shift()!;
  if (waiting.length > 0) setImmediate(prepareNext).unref();
  prepareSchema(schema);
}
