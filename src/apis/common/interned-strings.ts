/**
 * One instance of each repeated string in decoded API objects.
 *
 * `JSON.parse` makes a new string for every value it reads (V8 shares keys, not values), and the
 * objects a fleet holds repeat most of their values: apiVersion and kind, condition types,
 * reasons and messages, finalizers, label and annotation values, defaulted timestamps. In heap
 * snapshots of a 3,000-binding fleet, copies of strings already held elsewhere were 70 % of the
 * string bytes on the API server's thread and 75 % on the controllers' (86 and 95 MiB).
 * `internStrings` replaces each string in a decoded object, in place, by the instance a table
 * already holds; a stored object or a cached one then shares its values with its peers.
 *
 * Guarantees:
 * - the value is unchanged: each string is replaced by an equal one, so it encodes, compares and
 *   reads exactly as before; object identity is kept (callers may key caches by it);
 * - frozen objects and arrays are left as they are, with what they hold (they are shared
 *   already, and cannot be written); a `__proto__` key is never assigned to;
 * - the table is bounded: at most `TABLE_ENTRIES` strings of at most `MAX_LENGTH` characters
 *   each. When it is full it starts over, so strings seen once (names, uids, resourceVersions)
 *   leave, and a value that repeats is back in the table at its next use;
 * - in a decoded object, strings of at most `PARSER_SHARED_LENGTH` characters are not looked up:
 *   V8's `JSON.parse` already gives one instance of each value that short (it internalizes them;
 *   its test pins that), so the lookup bought nothing. They were about half the lookups of both
 *   threads in a 1,000-binding run — condition types and statuses, short reasons and kinds,
 *   families (bench/README.md, session 28).
 *
 * Caveat: the table is per thread (module state); each thread's objects share within it. A short
 * string that code made rather than `JSON.parse` (the API server's namespace taken from the URL)
 * keeps its own copy: a few bytes per object (10,000 bindings peaked at the same RSS either way).
 */

/** Strings longer than this are left alone: long values rarely repeat and cost a hash to look up. */
export const MAX_LENGTH = 1024;
/** Values up to this long come out of V8's `JSON.parse` internalized: one instance per value already. */
export const PARSER_SHARED_LENGTH = 10;
/** How many strings the table holds before it starts over. */
export const TABLE_ENTRIES = 32_768;

const table = new Map<string, string>();

/** The table's instance of `value`, which becomes the instance when the table has none. */
export function internString(value: string): string {
  if (value.length > MAX_LENGTH) return value;
  const held = table.get(value);
  if (held !== undefined) return held;
  if (table.size >= TABLE_ENTRIES) table.clear();
  table.set(value, value);
  return value;
}

/** How many strings the table holds now. */
export function heldStrings(): number {
  return table.size;
}

/** Replaces, in place, every string in `value` (a decoded JSON value) by its interned instance. */
export function internStrings<T>(value: T): T {
  return internStringsSince(value, undefined);
}

/**
 * `internStrings(value)` for a new version of an object whose previous version, `previous`, went
 * through it already: a subtree the new version shares with the previous one (the same object at
 * the same place, as a write shares what it does not change) holds interned strings and is not
 * walked again.
 */
export function internStringsSince<T>(value: T, previous: unknown): T {
  if (typeof value === 'object' && value !== null && value !== previous) internWithin(value, previous);
  return value;
}

function internWithin(container: object, previous: unknown): void {
  if (Object.isFrozen(container)) return;
  const before =
    typeof previous === 'object' && previous !== null ? (previous as Record<string, unknown>) : undefined;
  if (Array.isArray(container)) {
    const items = Array.isArray(before) ? before : undefined;
    for (let i = 0; i < container.length; i++) {
      const item: unknown = container[i];
      if (typeof item === 'string') {
        if (item.length > PARSER_SHARED_LENGTH) container[i] = internString(item);
      } else internStringsSince(item, items?.[i]);
    }
    return;
  }
  const record = container as Record<string, unknown>;
  for (const key in record) {
    if (key === '__proto__') continue;
    const item = record[key];
    if (typeof item === 'string') {
      if (item.length > PARSER_SHARED_LENGTH) record[key] = internString(item);
    } else internStringsSince(item, before && Object.hasOwn(before, key) ? before[key] : undefined);
  }
}
