/**
 * The audit log (`--audit-log PATH`): one line of JSON per request, an `audit.k8s.io/v1` Event at
 * level Metadata, as the Kubernetes API server writes with a Metadata policy and the log backend.
 *
 * Guarantees: every request that reached a plane is recorded once, at stage `ResponseComplete`,
 * when its response has ended (a watch when it closes), with the authenticated user and groups
 * (none for a request refused as unauthenticated), the verb (the RBAC verb of a resource request,
 * the lower-case HTTP method otherwise), `objectRef` for a resource request (resource,
 * subresource, namespace, name, apiGroup, apiVersion) and `responseStatus.code`. No request or
 * response body and no token is ever written. The plane is in the annotation
 * `netpresence.datumapis.com/plane`, since one server serves many planes. Lines are appended in
 * the order responses end; `close()` resolves once every line is on disk.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import type { ServerRequest } from './http/exchange.ts';
import type { Identity } from './auth/tokens.ts';

export const PLANE_ANNOTATION = 'netpresence.datumapis.com/plane';

export interface AuditObjectRef {
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion: string;
}

export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: 'Metadata';
  auditID: string;
  stage: 'ResponseComplete';
  requestURI: string;
  verb: string;
  user: { username?: string; groups?: string[] };
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: AuditObjectRef;
  responseStatus: { metadata: Record<string, never>; code: number };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations: Record<string, string>;
}

/** What the server knows of a request once it has been parsed and authenticated. */
export interface AuditedRequest {
  plane?: string;
  identity?: Identity;
  verb?: string;
  objectRef?: AuditObjectRef;
}

/** Microsecond-precision RFC 3339, as Kubernetes' audit timestamps are written. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

export class AuditLog {
  readonly #stream: WriteStream;

  private constructor(stream: WriteStream) {
    this.#stream = stream;
  }

  /** Appends to `path` (created with its folder when missing). */
  static open(path: string): AuditLog {
    mkdirSync(dirname(path), { recursive: true });
    return new AuditLog(createWriteStream(path, { flags: 'a', mode: 0o600 }));
  }

  /** Records `req` when its response ends; `describe` is asked then, for what was learned. */
  watch(
    req: ServerRequest,
    res: { statusCode: number; once(event: 'close', f: () => void): unknown },
    describe: () => AuditedRequest,
  ): void {
    const received = Date.now();
    res.once('close', () => this.#write(auditEvent(req, res.statusCode, describe(), received, Date.now())));
  }

  #write(event: AuditEvent): void {
    if (!this.#stream.writableEnded) this.#stream.write(`${JSON.stringify(event)}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#stream.end(() => resolve()));
  }
}

export function auditEvent(
  req: ServerRequest,
  code: number,
  request: AuditedRequest,
  receivedMs: number,
  completedMs: number,
): AuditEvent {
  const { identity } = request;
  const userAgent = req.headers['user-agent'];
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: randomUUID(),
    stage: 'ResponseComplete',
    requestURI: req.url ?? '/',
    verb: request.verb ?? (req.method ?? 'GET').toLowerCase(),
    user: identity ? { username: identity.name, groups: [...identity.groups] } : {},
    sourceIPs: req.socket.remoteAddress ? [req.socket.remoteAddress] : [],
    ...(userAgent && { userAgent }),
    ...(request.objectRef && { objectRef: request.objectRef }),
    responseStatus: { metadata: {}, code },
    requestReceivedTimestamp: microTime(receivedMs),
    stageTimestamp: microTime(completedMs),
    annotations: request.plane ? { [PLANE_ANNOTATION]: request.plane } : {},
  };
}
