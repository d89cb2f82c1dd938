/**
 * The shape of a stored Kubernetes object, and the small, generic operations the server applies
 * to every kind: cloning, structural equality, and the omitempty rules of the wire encoding.
 *
 * Guarantees: helpers never mutate their inputs. Stored objects are treated as immutable; every
 * write builds a new object.
 */

export type { ObjectMeta, OwnerReference } from '../apis/common/meta.ts';
import type { ObjectMeta } from '../apis/common/meta.ts';
import { setField } from './patch/json-object.ts';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Field `key` of `object` when it is a plain object (a `spec`, a `status`), else `{}`. */
export function objectField(object: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = object[key];
  return isPlainObject(value) ? value : {};
}

/** A scalar field as the string a selector compares: '' when absent. */
export function stringOf(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : '';
}

/**
 * A deep copy. A string, number, boolean, bigint, null or undefined is its own copy; arrays and
 * plain objects (a decoded JSON value, a schema's default) are copied member by member, an own
 * `__proto__` key included as a key; anything else (a Date, a Map) is left to structuredClone.
 * Member by member is what a JSON value needs: structuredClone serialises and parses each value
 * anew, and on a create's defaults cost several times the copy itself (bench/README.md, session 26).
 */
export function clone<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(clone) as T;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setField(copy, key, clone((value as Record<string, unknown>)[key]));
  return copy as T;
}

/**
 * Structural equality of JSON values: arrays item by item, objects by their own keys (a key whose
 * value is undefined counts as absent, and key order does not matter), anything else by `===`.
 * It allocates nothing: every update compares its result with the stored object to tell a write
 * that changes nothing, and the key lists and closures of a functional version were a few percent
 * of what the server's thread allocated in a burst (bench/README.md, session 27).
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  return isPlainObject(a) && isPlainObject(b) && equalFields(a, b, undefined);
}

/** deepEqual of two objects' fields, those `skipped` says true for left out. */
function equalFields(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  skipped: ((key: string) => boolean) | undefined,
): boolean {
  let defined = 0;
  for (const key in a) {
    if (!Object.hasOwn(a, key) || a[key] === undefined || skipped?.(key)) continue;
    if (!Object.hasOwn(b, key) || !deepEqual(a[key], b[key])) return false;
    defined++;
  }
  for (const key in b) if (Object.hasOwn(b, key) && b[key] !== undefined && !skipped?.(key)) defined--;
  return defined === 0;
}

const outsideSpec = (key: string) => key === 'metadata' || key === 'apiVersion' || key === 'kind';
const outsideSpecOrStatus = (key: string) => outsideSpec(key) || key === 'status';

/**
 * Whether two objects are deepEqual in everything but `metadata`, `apiVersion` and `kind` (and
 * `status` when it is a subresource): whether an update changes what `generation` counts. It
 * copies neither object.
 */
export function sameSpec(a: KubeObject, b: KubeObject, statusIsSubresource: boolean): boolean {
  return equalFields(a, b, statusIsSubresource ? outsideSpecOrStatus : outsideSpec);
}

/** Go's omitempty for the metadata fields clients compare: no empty lists or maps on the wire. */
export function compactMetadata(metadata: ObjectMeta): ObjectMeta {
  const out: ObjectMeta = { ...metadata };
  for (const field of ['finalizers', 'ownerReferences', 'managedFields'] as const) {
    if (Array.isArray(out[field]) && out[field].length === 0) delete out[field];
  }
  for (const field of ['labels', 'annotations'] as const) {
    if (isPlainObject(out[field]) && Object.keys(out[field]).length === 0) delete out[field];
  }
  for (const field of ['generateName', 'namespace'] as const) {
    if (out[field] === '') delete out[field];
  }
  return out;
}

let lastSecond = NaN;
let lastText = '';

/** `date` in RFC 3339 to the second (`2026-12-03T16:53:41Z`); formatted once per second. */
export function nowRfc3339(date: Date): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== lastSecond) {
    // An invalid date is never cached (NaN differs from itself): toISOString throws for it.
    lastText = date.toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = second;
  }
  return lastText;
}
