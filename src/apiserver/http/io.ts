/**
 * Reading request bodies and writing responses on the wire.
 *
 * Guarantees: a body over 3 MiB is refused with 413 before it is parsed; JSON is written
 * compact with `Content-Type: application/json`; every error leaves as a v1 Status carrying its
 * HTTP code; admission warnings leave as `Warning: 299 - "<text>"` headers.
 */
import type { ServerReply, ServerRequest } from './exchange.ts';
import { parse as parseYaml } from 'yaml';
import { knownEncoding } from '../encoding/presented-json.ts';
import { isProtobuf, decodeProtobufObject } from '../encoding/protobuf.ts';
import { asApiError, badRequest, entityTooLarge, unsupportedMediaType, type ApiError } from '../errors.ts';
import { checkDepth } from '../limits.ts';
import { isPlainObject } from '../objects.ts';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(req: ServerRequest): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    throw entityTooLarge(MAX_BODY_BYTES);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      req.resume();
      throw entityTooLarge(MAX_BODY_BYTES);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Media types by Content-Type value: a handful in practice, read several times per request. */
const mediaTypes = new Map<string, string>();
const MEDIA_TYPES_KEPT = 64;

export function mediaType(contentType: string | undefined): string {
  const header = contentType ?? '';
  const known = mediaTypes.get(header);
  if (known !== undefined) return known;
  const type = header.split(';')[0].trim().toLowerCase();
  // Bounded: a client inventing values gets the same answer, only not remembered.
  if (mediaTypes.size < MEDIA_TYPES_KEPT) mediaTypes.set(header, type);
  return type;
}

/** Decodes a JSON, YAML (apply) or protobuf body into a JSON value no deeper than MAX_JSON_DEPTH. */
export function decodeBody(body: Buffer, contentType: string | undefined): unknown {
  const value = decodeAny(body, contentType);
  checkDepth(value);
  return value;
}

function decodeAny(body: Buffer, contentType: string | undefined): unknown {
  if (isProtobuf(contentType)) return decodeProtobufObject(body);
  const text = body.toString('utf8');
  if (
    mediaType(contentType) === 'application/apply-patch+yaml' ||
    mediaType(contentType) === 'application/yaml'
  ) {
    try {
      // Errors only: YAML's warnings would go to the process's warning stream, a client's to fill.
      return parseYaml(text, { logLevel: 'error' });
    } catch (err) {
      throw badRequest(`error decoding YAML: ${(err as Error).message}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`the body of the request could not be decoded as JSON: ${(err as Error).message}`);
  }
}

/** The media types a create or update body may have; none given means JSON, as in Kubernetes. */
export const OBJECT_MEDIA_TYPES = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
];

export function decodeObjectBody(body: Buffer, contentType: string | undefined): Record<string, unknown> {
  const type = mediaType(contentType);
  if (type !== '' && !OBJECT_MEDIA_TYPES.includes(type)) throw unsupportedMediaType(OBJECT_MEDIA_TYPES);
  if (body.length === 0) throw badRequest('the request body is empty: an object is required');
  const value = decodeBody(body, contentType);
  if (!isPlainObject(value)) throw badRequest('the request body must be a JSON object');
  return value;
}

export function writeJson(
  res: ServerReply,
  code: number,
  value: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  // A write's result carries the encoding its watch events used (encoding/presented-json.ts).
  const payload = knownEncoding(value) ?? JSON.stringify(value);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

export function writeError(res: ServerReply, err: unknown): ApiError {
  const error = asApiError(err);
  if (res.headersSent) {
    res.destroy();
    return error;
  }
  writeJson(res, error.code, error.toStatus());
  return error;
}

export function warningHeaders(warnings: string[]): Record<string, string[]> {
  if (warnings.length === 0) return {};
  return { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) };
}
