/**
 * Table cells: how the first JSONPath match of a printer column becomes the value kubectl
 * prints, as the apiextensions-apiserver table convertor does it.
 *
 * Guarantees, by column type:
 * - `string`: strings as they are, numbers and booleans printed, objects and arrays as compact
 *   JSON with sorted keys and `<`, `>`, `&` escaped (Go's json.Marshal).
 * - `integer` / `number` / `boolean`: the JSON value when it is of that type (an integer
 *   column truncates a fractional number, as Go's int64 conversion does), else null.
 * - `date`: the HumanDuration of now − value; `<unknown>` for an empty, `null` or zero
 *   (0001-01-01T00:00:00Z) timestamp; `<invalid>` for a string that is not RFC 3339.
 * - any other type, any non-string date, and a JSON null: null (kubectl prints blank).
 * Caveat: a JSON null in a string column prints blank here; Go prints `<no value>`.
 */
import { humanDuration } from './human-duration.ts';

const UNKNOWN_TIME = '<unknown>';
const INVALID_TIME = '<invalid>';

const ZERO_TIME = Date.parse('0001-01-01T00:00:00Z');
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function cellFor(type: string, value: unknown, now: Date): unknown {
  if (value === null) return null;
  switch (type) {
    case 'string':
      return printed(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? age(value, now) : null;
    default:
      return null;
  }
}

/** `kubectl`'s AGE for a timestamp string. */
function age(timestamp: string, now: Date): string {
  if (timestamp === '' || timestamp === 'null') return UNKNOWN_TIME;
  const time = parseRfc3339(timestamp);
  if (time === undefined) return INVALID_TIME;
  if (time === ZERO_TIME) return UNKNOWN_TIME;
  return humanDuration(now.getTime() - time);
}

function printed(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return goJson(value);
}

/** JSON as Go's json.Marshal writes a decoded object: map keys sorted, HTML characters escaped. */
function goJson(value: unknown): string {
  const sorted = JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
  return sorted.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Milliseconds since the epoch of an RFC 3339 timestamp, or undefined when it is not one. */
function parseRfc3339(text: string): number | undefined {
  const parts = RFC3339.exec(text);
  if (!parts) return undefined;
  const year = Number(parts[1]);
  const month = Number(parts[2]);
  const day = Number(parts[3]);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1] + (month === 2 && leap ? 1 : 0)) {
    return undefined;
  }
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}

/** A timestamp as Go formats `Time.UTC().Format(time.RFC3339)`; the zero time when absent or unreadable. */
export function rfc3339Seconds(timestamp: unknown): string {
  const time = typeof timestamp === 'string' ? parseRfc3339(timestamp) : undefined;
  return new Date(time ?? ZERO_TIME).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
