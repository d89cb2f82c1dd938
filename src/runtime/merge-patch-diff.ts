/**
 * The JSON merge patch (RFC 7386) that turns one value into another — for a field a controller
 * owns whole (a hub copy's `spec`, a ServingLocation's `spec`), so that the written value is
 * exactly the desired one, removed keys included.
 *
 * Guarantees: applying `mergePatchBetween(from, to)` to `from` yields `to`, for JSON values
 * without nulls; objects are compared key by key (a key absent from `to` becomes `null`),
 * everything else — arrays included, as merge patch replaces them whole — by value. It returns
 * undefined when the two are equal, so "write only when changed" is one check.
 *
 * Example: from `{a: 1, b: {c: 2, d: 3}}` to `{a: 1, b: {c: 4}}` → `{b: {c: 4, d: null}}`.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function mergePatchBetween(from: unknown, to: unknown): Json | undefined {
  if (!isObject(from) || !isObject(to)) return sameValue(from, to) ? undefined : ((to ?? null) as Json);
  const patch: Record<string, Json> = {};
  for (const key of Object.keys(from)) if (!(key in to) || to[key] === undefined) patch[key] = null;
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined) continue;
    const change = key in from ? mergePatchBetween(from[key], value) : (value as Json);
    if (change !== undefined) patch[key] = change;
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/** Deep equality of JSON values; object keys in any order. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a).filter((key) => a[key] !== undefined);
    const other = Object.keys(b).filter((key) => b[key] !== undefined);
    return keys.length === other.length && keys.every((key) => sameValue(a[key], b[key]));
  }
  return false;
}
