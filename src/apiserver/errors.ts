/**
 * Status errors: every refusal the API server sends, as the Kubernetes API server words it.
 *
 * Guarantees: each error serializes to a `v1 Status` with the real `reason`, `code` and message
 * format (spec/kube-api.md §9), so kubectl prints `Error from server (<reason>): <message>` and
 * client libraries classify it by reason. `details.kind` holds the resource (plural) for most
 * reasons and the Kind for Invalid, as the real server does.
 */

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'Gone'
  | 'Expired'
  | 'Forbidden'
  | 'Unauthorized'
  | 'MethodNotAllowed'
  | 'BadRequest'
  | 'UnsupportedMediaType'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'InternalError'
  | 'Timeout'
  | 'InsufficientStorage'
  | 'ServiceUnavailable';

export type CauseReason =
  | 'FieldValueRequired'
  | 'FieldValueNotSupported'
  | 'FieldValueInvalid'
  | 'FieldValueTypeInvalid'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'NamespaceTerminating'
  | 'ResourceVersionTooLarge'
  | 'FieldManagerConflict';

export interface StatusCause {
  /** A CauseReason, or a rule's own reason string. */
  reason?: string;
  message: string;
  field?: string;
  /** A cause an extension names for its clients, e.g. IPAM's `Exhausted` (apis.md §2.6). */
  type?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A resource as errors name it: `widgets.example.com`, or `namespaces` for the core group. */
export interface ResourceRef {
  group: string;
  resource: string;
}

export function qualifiedResource(ref: ResourceRef): string {
  return ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
}

/**
 * A refusal (4xx) carries no stack trace: it goes to the client as a Status and is never logged
 * with one, and capturing the stack of every NotFound a controller's GET meets and every stale
 * write's Conflict was 1 % of the server's thread in a burst (bench/README.md, session 26). A
 * server error (5xx) keeps its stack.
 */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: StatusReason;
  readonly details?: StatusDetails;

  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails) {
    const stackTraceLimit = Error.stackTraceLimit;
    if (code < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.name = 'ApiError';
  }

  toStatus(): Status {
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details && Object.keys(this.details).length > 0) status.details = this.details;
    return status;
  }
}

export function notFound(ref: ResourceRef, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(ref)} "${name}" not found`, {
    name,
    group: ref.group,
    kind: ref.resource,
  });
}

export function pathNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(ref: ResourceRef, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualifiedResource(ref)} "${name}" already exists`, {
    name,
    group: ref.group,
    kind: ref.resource,
  });
}

export function conflict(ref: ResourceRef, name: string, detail: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(ref)} "${name}": ${detail}`,
    { name, group: ref.group, kind: ref.resource },
  );
}

export const STALE_OBJECT =
  'the object has been modified; please apply your changes to the latest version and try again';

export function staleObject(ref: ResourceRef, name: string): ApiError {
  return conflict(ref, name, STALE_OBJECT);
}

/** One field failure inside a 422, worded as the real server's field.Error. */
export interface FieldError {
  reason: CauseReason;
  field: string;
  /** The cause message without the field, e.g. `Required value` or `Invalid value: 3: must be even`. */
  detail: string;
}

export function required(field: string, detail?: string): FieldError {
  return {
    reason: 'FieldValueRequired',
    field,
    detail: detail ? `Required value: ${detail}` : 'Required value',
  };
}

export function invalidValue(field: string, value: unknown, detail: string): FieldError {
  return { reason: 'FieldValueInvalid', field, detail: `Invalid value: ${formatValue(value)}: ${detail}` };
}

export function forbiddenField(field: string, detail: string): FieldError {
  return { reason: 'FieldValueForbidden', field, detail: `Forbidden: ${detail}` };
}

export function notSupported(field: string, value: unknown, supported: unknown[]): FieldError {
  return {
    reason: 'FieldValueNotSupported',
    field,
    detail: `Unsupported value: ${formatValue(value)}: supported values: ${supported.map((v) => formatValue(v)).join(', ')}`,
  };
}

export function duplicateValue(field: string, value: unknown): FieldError {
  return { reason: 'FieldValueDuplicate', field, detail: `Duplicate value: ${formatValue(value)}` };
}

/** Values printed the way Go's field errors print them: strings quoted, the rest as JSON. */
export function formatValue(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value);
}

/** 422 Invalid: `<Kind>.<group> "<name>" is invalid: <field>: <detail>` (bracketed when several). */
export function invalid(kind: string, group: string, name: string, errors: FieldError[]): ApiError {
  const parts = errors.map((e) => `${e.field}: ${e.detail}`);
  const summary = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    name,
    group,
    kind,
    causes: errors.map((e) => ({ reason: e.reason, message: e.detail, field: e.field })),
  });
}

export function badRequest(message: string, causes?: StatusCause[]): ApiError {
  return new ApiError(400, 'BadRequest', message, causes ? { causes } : undefined);
}

export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

export function tooOldResourceVersion(requested: number, oldest: number): ApiError {
  return expired(`too old resource version: ${requested} (${oldest})`);
}

export function forbidden(ref: ResourceRef, name: string, detail: string, causes?: StatusCause[]): ApiError {
  const subject = name ? `${qualifiedResource(ref)} "${name}"` : qualifiedResource(ref);
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${detail}`, {
    name: name || undefined,
    group: ref.group,
    kind: ref.resource,
    causes,
  });
}

export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

export function methodNotAllowed(): ApiError {
  return new ApiError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
  );
}

export function unsupportedMediaType(accepted: string[]): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function notAcceptable(accepted: string[]): ApiError {
  return new ApiError(
    406,
    'NotAcceptable',
    `only the following media types are accepted: ${accepted.join(', ')}`,
  );
}

export function entityTooLarge(limitBytes: number): ApiError {
  return new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limitBytes}`);
}

export function internalError(err: unknown): ApiError {
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}

export function timeout(message: string, causes?: StatusCause[]): ApiError {
  return new ApiError(504, 'Timeout', `Timeout: ${message}`, causes ? { causes } : undefined);
}

/** 504 for a read from a revision the server has not reached, as Kubernetes' watch cache answers. */
export function resourceVersionTooLarge(requested: number, current: number): ApiError {
  return timeout(`Too large resource version: ${requested}, current: ${current}`, [
    { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
  ]);
}

/** 503 ServiceUnavailable: the server cannot do this now (a degraded, read-only plane). */
export function serviceUnavailable(message: string): ApiError {
  return new ApiError(503, 'ServiceUnavailable', message);
}

export function asApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : internalError(err);
}
