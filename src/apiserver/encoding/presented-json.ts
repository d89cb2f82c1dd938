/**
 * The JSON of a stored object as its type presents it, encoded once per write for everyone who
 * sends it: the watch stream lines of every watcher and the response to the request that made
 * the write.
 *
 * Guarantees:
 * - `presentedJson(type, stored)` is exactly `JSON.stringify(presentedForm(type, stored))`;
 *   only the encodings of the last stored object asked for are kept (the revision log tells
 *   every watcher of a write synchronously, and the write's response is built right after it),
 *   so no encoding outlives the next write;
 * - `rememberPresentedJson` gives the encoding a write measured its object by, so that it is not
 *   encoded a second time;
 * - `presentedWithEncoding` returns `presentedForm(type, stored)` and remembers its encoding
 *   with it (a weak reference, gone with the object), so that `knownEncoding` of that object
 *   gives the encoding instead of encoding it again.
 * Assumes: stored objects and the presented objects returned here are never mutated (every
 * write builds new objects, objects.ts).
 */
import type { KubeObject } from '../objects.ts';
import { presentedForm, type ResourceType } from '../resources/resource-type.ts';

let lastStored: KubeObject | undefined;
let lastByType = new Map<ResourceType, string>();
const encodings = new WeakMap<object, string>();

/** `JSON.stringify(presentedForm(type, stored))`, encoded once for the last stored object. */
export function presentedJson(type: ResourceType, stored: KubeObject): string {
  if (stored !== lastStored) {
    lastStored = stored;
    lastByType = new Map<ResourceType, string>();
  }
  let json = lastByType.get(type);
  if (json === undefined) {
    json = JSON.stringify(presentedForm(type, stored));
    lastByType.set(type, json);
  }
  return json;
}

/**
 * Remembers `json`, which must be `JSON.stringify(presentedForm(type, stored))`, as the encoding
 * of `stored`, the object about to be stored (writes.ts encodes it once to measure it).
 */
export function rememberPresentedJson(type: ResourceType, stored: KubeObject, json: string): void {
  lastStored = stored;
  lastByType = new Map([[type, json]]);
}

/** `presentedForm(type, stored)`, whose encoding `knownEncoding` then gives without encoding it. */
export function presentedWithEncoding(type: ResourceType, stored: KubeObject): KubeObject {
  const object = presentedForm(type, stored);
  encodings.set(object, presentedJson(type, stored));
  return object;
}

/** The JSON of an object returned by `presentedWithEncoding`; undefined for any other value. */
export function knownEncoding(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? encodings.get(value) : undefined;
}
