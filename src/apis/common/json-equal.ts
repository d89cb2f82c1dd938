/**
 * Deep equality of API objects as `util.isDeepStrictEqual` answers it, without its cost.
 *
 * Controllers compare what they would write with what they hold on every reconcile; the objects
 * are JSON values (decoded, or built from decoded ones), and for those node's comparison builds
 * key lists and sets at every level: in the controller worker of a 1,000-binding burst it was
 * about 4 % of the thread's CPU (bench/README.md, session 27).
 *
 * Guarantees: for JSON values — primitives, arrays without holes, objects whose prototype is
 * `Object.prototype` or null, and objects built of them, `undefined` included as a value —
 * `jsonEqual(a, b) === isDeepStrictEqual(a, b)`: primitives compare with `Object.is` (`NaN`
 * equals `NaN`, `0` does not equal `-0`), objects by their own enumerable string keys (a key
 * holding `undefined` is a key) and the same prototype, arrays by length and item; nothing is
 * allocated. Anything else met on the way (a Date, a Map, an array with holes) is handed to
 * `isDeepStrictEqual`. Caveat: symbol keys, and properties of an array other than its items,
 * are not compared (JSON has neither).
 */
import { isDeepStrictEqual } from 'node:util';

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  const prototype: unknown = Object.getPrototypeOf(a);
  if (prototype !== Object.getPrototypeOf(b)) return false;
  if (Array.isArray(a)) return equalItems(a, b as unknown[]);
  if (prototype !== Object.prototype && prototype !== null) return isDeepStrictEqual(a, b);
  return equalFields(a as Record<string, unknown>, b as Record<string, unknown>);
}

function equalItems(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (!(i in a) || !(i in b)) return isDeepStrictEqual(a, b);
    if (!jsonEqual(a[i], b[i])) return false;
  }
  return true;
}

function equalFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let keys = 0;
  for (const key in a) {
    if (!Object.hasOwn(a, key)) continue;
    if (!Object.hasOwn(b, key) || !jsonEqual(a[key], b[key])) return false;
    keys++;
  }
  for (const key in b) if (Object.hasOwn(b, key)) keys--;
  return keys === 0;
}
