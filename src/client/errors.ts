/**
 * Status errors: every refusal of a plane, typed by what the caller should do about it.
 *
 * Guarantees: `statusErrorFrom` classifies by the Status `reason` first (what the server meant)
 * and by the HTTP code only when the reason is absent or unknown, so a 409 `AlreadyExists` is
 * never mistaken for a stale-write `Conflict`. Every error keeps the server's Status body, and
 * its message is the server's message (or the HTTP code's name when the body had none).
 * Caveat: reasons outside this list (MethodNotAllowed, InternalError, Timeout, …) are a plain
 * `StatusError`; check `code` for those.
 */
import { STATUS_CODES } from 'node:http';

/** One field-level cause of a refusal, as the server reports it (every field optional). */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** The `v1 Status` body of a refusal. */
export interface Status {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: StatusCause[];
    retryAfterSeconds?: number;
  };
  code?: number;
}

export class StatusError extends Error {
  readonly reason: string;
  readonly causes: StatusCause[];

  constructor(
    readonly code: number,
    readonly status: Status,
  ) {
    super(status.message || `${code} ${STATUS_CODES[code] ?? 'Unknown Status'}`);
    this.name = new.target.name;
    this.reason = status.reason ?? '';
    this.causes = status.details?.causes ?? [];
  }
}

/** 404: the object (or its namespace, or its resource type) does not exist. */
export class NotFoundError extends StatusError {}
/** 409 AlreadyExists: a create found the name taken. */
export class AlreadyExistsError extends StatusError {}
/** 409 Conflict: the write was based on a stale resourceVersion or uid; re-read and retry. */
export class ConflictError extends StatusError {}
/** 422 Invalid: the object broke a validation rule; `causes` names the fields. */
export class InvalidError extends StatusError {}
/** 410 Expired or Gone: a resume point (watch resourceVersion, continue token) is too old. */
export class GoneError extends StatusError {}
/** 403: the identity may not do this. */
export class ForbiddenError extends StatusError {}
/** 401: the credentials were not accepted. */
export class UnauthorizedError extends StatusError {}
/** 400: the request itself was malformed. */
export class BadRequestError extends StatusError {}

type StatusErrorClass = new (code: number, status: Status) => StatusError;

const byReason: Record<string, StatusErrorClass> = {
  NotFound: NotFoundError,
  AlreadyExists: AlreadyExistsError,
  Conflict: ConflictError,
  Invalid: InvalidError,
  Expired: GoneError,
  Gone: GoneError,
  Forbidden: ForbiddenError,
  Unauthorized: UnauthorizedError,
  BadRequest: BadRequestError,
};

const byCode: Record<number, StatusErrorClass> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  422: InvalidError,
};

function asStatus(body: unknown): Status {
  if (typeof body === 'object' && body !== null) return body;
  if (typeof body === 'string' && body.trim() !== '') return { message: body.trim() };
  return {};
}

/**
 * The typed error for an HTTP `code` and a response body: a Status object, or text when the
 * server (or a proxy in front of it) sent no Status.
 */
export function statusErrorFrom(code: number, body: unknown): StatusError {
  const status = asStatus(body);
  const type = (status.reason && byReason[status.reason]) || byCode[code] || StatusError;
  return new type(code, status);
}

export const isNotFound = (err: unknown): err is NotFoundError => err instanceof NotFoundError;
export const isAlreadyExists = (err: unknown): err is AlreadyExistsError => err instanceof AlreadyExistsError;
export const isConflict = (err: unknown): err is ConflictError => err instanceof ConflictError;
export const isInvalid = (err: unknown): err is InvalidError => err instanceof InvalidError;
export const isGone = (err: unknown): err is GoneError => err instanceof GoneError;
export const isForbidden = (err: unknown): err is ForbiddenError => err instanceof ForbiddenError;
