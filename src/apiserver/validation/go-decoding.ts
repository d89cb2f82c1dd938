/**
 * What the Go JSON decoder answers when a built-in object's field has the wrong JSON type, so the
 * server refuses such bodies with Kubernetes' own 400 words: `Lease in version "v1" cannot be
 * handled as a Lease: json: cannot unmarshal string into Go struct field
 * LeaseSpec.spec.leaseDurationSeconds of type int32`.
 *
 * Guarantees: each reader returns the value when its JSON type fits (absent and `null` read as
 * absent, as in Go) and throws that 400 otherwise; nothing is coerced.
 * Caveat: a time that does not parse is worded as Go's time.Parse begins its error (`parsing time
 * "x" as "<layout>"`), without the part naming which element failed.
 */
import { ApiError } from '../errors.ts';
import { isPlainObject } from '../objects.ts';

/** Where a field lives: the object's kind and version, the innermost Go struct, the JSON path. */
export interface GoField {
  kind: string;
  version: string;
  struct: string;
  path: string;
}

/** Go's name of a JSON value in an UnmarshalTypeError: a number is shown when an int refuses it. */
function jsonType(value: unknown, goTypeName: string): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return /^u?int/.test(goTypeName) ? `number ${value}` : 'number';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

function cannotBeHandled(field: GoField, detail: string): ApiError {
  const { kind, version } = field;
  return new ApiError(
    400,
    'BadRequest',
    `${kind} in version "${version}" cannot be handled as a ${kind}: ${detail}`,
  );
}

export function cannotUnmarshal(field: GoField, value: unknown, goTypeName: string): ApiError {
  return cannotBeHandled(
    field,
    `json: cannot unmarshal ${jsonType(value, goTypeName)} into Go struct field ${field.struct}.${field.path} of type ${goTypeName}`,
  );
}

export function readString(field: GoField, value: unknown, goTypeName = 'string'): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== 'string') throw cannotUnmarshal(field, value, goTypeName);
  return value;
}

/** A Go int32: a JSON number without a fraction, within range. */
export function readInt32(field: GoField, value: unknown): number | undefined {
  if (value == null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value > 2 ** 31 - 1 || value < -(2 ** 31))
    throw cannotUnmarshal(field, value, 'int32');
  return value;
}

export function readObject(
  field: GoField,
  value: unknown,
  goTypeName: string,
): Record<string, unknown> | undefined {
  if (value == null) return undefined;
  if (!isPlainObject(value)) throw cannotUnmarshal(field, value, goTypeName);
  return value;
}

export function readStrings(
  field: GoField,
  value: unknown,
  goTypeName: string,
  itemType = 'string',
): string[] {
  if (value == null) return [];
  if (!Array.isArray(value)) throw cannotUnmarshal(field, value, goTypeName);
  for (const item of value as unknown[]) {
    if (typeof item !== 'string') throw cannotUnmarshal(field, item, itemType);
  }
  return value as string[];
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A metav1.Time (`micro` false) or metav1.MicroTime: an RFC 3339 string. Returns the time in
 * milliseconds since the epoch, or undefined when absent (Go's zero time).
 */
export function readTime(field: GoField, value: unknown, micro: boolean): number | undefined {
  if (value == null) return undefined;
  const type = micro ? 'v1.MicroTime' : 'v1.Time';
  if (typeof value !== 'string') throw cannotUnmarshal(field, value, type);
  if (value === '') return undefined;
  const layout = micro ? '2006-01-02T15:04:05.000000Z07:00' : '2006-01-02T15:04:05Z07:00';
  const ms = Date.parse(value);
  if (!RFC3339.test(value) || Number.isNaN(ms)) {
    throw cannotBeHandled(field, `parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}`);
  }
  return ms;
}
