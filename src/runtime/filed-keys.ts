/**
 * Keys filed under values (an index's entries, a namespace's objects, an owner's dependents),
 * kept compact: a value holds its key itself while it is the only one, a Set from the second on.
 * Most values file one key (a uid, a pair, an owner), and a fleet holds hundreds of thousands of
 * them: at 3,000 bindings the controller worker's store indexes and namespace keys, mostly Sets
 * of one key, were 35 of the 77 MiB its stores held.
 *
 * Guarantees: `keysOf` lists exactly the keys filed and not unfiled since, each once; a value
 * with no key left is removed from the map. Imports nothing: the API server's garbage collector
 * files its dependents with it too.
 */
export type Filed = string | Set<string>;

/** The keys filed under one value (none for undefined). */
export function keysOf(filed: Filed | undefined): string[] {
  if (filed === undefined) return [];
  return typeof filed === 'string' ? [filed] : [...filed];
}

/** Files `key` under `value`. */
export function fileKey(entries: Map<string, Filed>, value: string, key: string): void {
  const filed = entries.get(value);
  if (filed === undefined) entries.set(value, key);
  else if (typeof filed !== 'string') filed.add(key);
  else if (filed !== key) entries.set(value, new Set([filed, key]));
}

/** Unfiles `key` from `value`: the value goes once nothing is filed under it, its Set at one key. */
export function unfileKey(entries: Map<string, Filed>, value: string, key: string): void {
  const filed = entries.get(value);
  if (filed === undefined) return;
  if (typeof filed === 'string') {
    if (filed === key) entries.delete(value);
    return;
  }
  filed.delete(key);
  if (filed.size === 1) entries.set(value, filed.values().next().value!);
  else if (filed.size === 0) entries.delete(value);
}
