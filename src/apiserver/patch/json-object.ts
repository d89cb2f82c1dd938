/**
 * JSON objects as the patch engines read and build them.
 *
 * Guarantees: a field is read only when it is the object's own, and written as data — even a
 * field named `__proto__` — so no patch, whatever its field names, can reach or change an
 * object's prototype.
 */

export type JsonObject = Record<string, unknown>;

/** The object's own field, or undefined when it has none (JSON has no undefined values). */
export function fieldOf(object: JsonObject, name: string): unknown {
  return Object.hasOwn(object, name) ? object[name] : undefined;
}

/**
 * Sets a field as data; plain assignment to `__proto__` would replace the prototype instead. Any
 * other name is assigned: on a plain object that is the same, and it keeps the object's fast
 * shape (pruning and copying call this for every field of every write).
 */
export function setField(object: JsonObject, name: string, value: unknown): void {
  if (name === '__proto__')
    Object.defineProperty(object, name, { value, writable: true, enumerable: true, configurable: true });
  else object[name] = value;
}

/** The name Go's encoding/json gives a decoded value's type in its unmarshal errors. */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}
