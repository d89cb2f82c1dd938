/**
 * Write limits: how large and how deep what a client writes may be, so that no single request
 * (nor a series of them) can exhaust the server's memory or a plane's disk.
 *
 * Guarantees:
 * - a decoded body nested deeper than MAX_JSON_DEPTH is 400 before anything else walks it
 *   recursively (the check itself descends at most MAX_JSON_DEPTH + 1 levels, whatever the body);
 * - an object whose JSON encoding exceeds the plane's object limit (1.5 MiB by default, as
 *   etcd's default request limit bounds a Kubernetes object) is refused with 413
 *   RequestEntityTooLarge before it is stored, whatever verb built it (create, update, any patch,
 *   apply);
 * - the server's own encoding is what is measured, so a client cannot shrink it by whitespace.
 * Caveat: Go's decoder allows 10000 levels; this server allows MAX_JSON_DEPTH levels, because
 * its validation and CEL evaluation recurse and must stay well within Node's stack.
 */
import { ApiError, badRequest } from './errors.ts';
import { isPlainObject } from './objects.ts';

/** Default limit of one stored object's encoded size (bytes); PlaneOptions.maxObjectBytes overrides it. */
export const DEFAULT_MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

/** Nesting depth allowed in a request body (objects and arrays). */
export const MAX_JSON_DEPTH = 1000;

/** The JSON-encoded size of a value in bytes. */
export function encodedSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/** 413 when `object`'s encoding is larger than `limit` bytes; else its encoded size. */
export function checkObjectSize(kind: string, name: string, object: unknown, limit: number): number {
  return checkEncodedSize(kind, name, encodedSize(object), limit);
}

/** 413 when an object's encoding, `size` bytes already measured, is larger than `limit`; else `size`. */
export function checkEncodedSize(kind: string, name: string, size: number, limit: number): number {
  if (size > limit) throw objectTooLarge(kind, name, size, limit);
  return size;
}

export function objectTooLarge(kind: string, name: string, size: number, limit: number): ApiError {
  return new ApiError(
    413,
    'RequestEntityTooLarge',
    `Request entity too large: ${kind} "${name}" would be ${size} bytes encoded; the limit is ${limit} bytes`,
  );
}

/**
 * 400 when `value` nests objects and arrays deeper than `limit`. It recurses, but never below
 * `limit + 1` levels, and allocates nothing: it runs on every request body, and the work list of
 * an iterative walk was about 2 % of what the server's thread allocated in a burst
 * (bench/README.md, session 27).
 */
export function checkDepth(value: unknown, limit = MAX_JSON_DEPTH): void {
  if (nestsDeeper(value, limit)) {
    throw badRequest(
      `the body of the request could not be decoded: exceeded max depth ${limit} of nested objects and arrays`,
    );
  }
}

/** Whether `value` holds an object or array more than `levels` levels down (itself the first). */
function nestsDeeper(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (nestsDeeper(value[i], levels - 1)) return true;
    return false;
  }
  if (!isPlainObject(value)) return false;
  for (const key in value) if (Object.hasOwn(value, key) && nestsDeeper(value[key], levels - 1)) return true;
  return false;
}
