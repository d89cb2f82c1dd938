/**
 * How long the server takes to answer: `apiserver_request_duration_seconds{verb, resource,
 * subresource}`, named, labelled and bucketed as kube-apiserver's, so its dashboards read ours.
 *
 * Guarantees: one observation per answered request, from the moment its handler is called (its
 * headers parsed) to the moment its response is complete; a request whose connection closes first
 * is observed when it closes. `verb` is kube-apiserver's: `GET`, `LIST`, `POST`, `PUT`, `PATCH`,
 * `APPLY` (a server-side apply patch), `DELETE`, `DELETECOLLECTION`, or the HTTP method for a
 * request that names no resource (discovery, OpenAPI, health). Watches are not observed: a watch
 * lasts as long as its client keeps it (kube-apiserver likewise times only the start of long
 * requests). `resource` and `subresource` are empty for a request that names no resource.
 * The time includes waiting for the request's body and, where the plane is durable, for the write
 * to be on disk: what the client waits for, less the way to and from the server.
 */
import type { ServerReply, ServerRequest } from './http/exchange.ts';
import type { Registry } from 'prom-client';
import { HotHistogram } from '../runtime/hot-metrics.ts';
import { APPLY_PATCH } from './handlers/patch.ts';
import { mediaType } from './http/io.ts';

/** kube-apiserver's buckets, in seconds. */
const BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

/** The verb of a resource request, as kube-apiserver reports it. */
const VERBS: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
};

/** What a request was, once parsed: undefined fields for a request that names no resource. */
export interface TimedRequest {
  verb?: string;
  resource?: string;
  subresource?: string;
}

export class RequestDurations {
  private readonly histogram: HotHistogram<'verb' | 'resource' | 'subresource'>;

  constructor(registry: Registry) {
    this.histogram = new HotHistogram(
      'apiserver_request_duration_seconds',
      'Response latency distribution in seconds for each verb, resource and subresource',
      ['verb', 'resource', 'subresource'],
      BUCKETS,
      [registry],
    );
  }

  /** Times `req` until `res` is complete; `what` is read then, once the request has been parsed. */
  time(req: ServerRequest, res: ServerReply, what: () => TimedRequest): void {
    const started = performance.now();
    // The listener keeps what it reads of the request, not the request: a watch's lasts minutes.
    const { method } = req;
    const contentType = req.headers['content-type'];
    const observe = () => {
      const request = what();
      if (request.verb === 'watch') return;
      this.histogram.observe(
        {
          verb: verbOf(method, contentType, request),
          resource: request.resource ?? '',
          subresource: request.subresource ?? '',
        },
        (performance.now() - started) / 1000,
      );
    };
    res.once('close', observe);
  }
}

function verbOf(method: string | undefined, contentType: string | undefined, request: TimedRequest): string {
  if (request.verb === undefined) return method ?? 'GET';
  if (request.verb === 'patch' && mediaType(contentType) === APPLY_PATCH) return 'APPLY';
  return VERBS[request.verb] ?? request.verb.toUpperCase();
}
