/**
 * Exchanges across threads: one HTTP request and its response carried over a link
 * (message-port-link.ts) as what they are — a method, a URL, headers and a body; a status,
 * headers and body chunks — instead of as HTTP bytes on a connection. A client in a worker thread
 * reaches the API server on the main thread this way without either thread writing or parsing
 * HTTP: on a 1,000-binding burst, writing and parsing it (both threads' `node:http` client and
 * server, their streams and agents) was the largest part of both threads' work (bench/README.md,
 * "Exchanges instead of HTTP between threads").
 *
 * Guarantees:
 * - the server sees what it would see over HTTP: the method, the path and query, the headers in
 *   lower case (repeated ones joined, and each value in `headersDistinct`), the body; the client
 *   sees the status, the headers in lower case and the body, in the order written, as it would
 *   read them from `node:http`'s response (`ClientExchange` is a Readable with `statusCode`,
 *   `headers` and `complete`);
 * - exchanges are served in the order the client's thread made them (each is handed to the
 *   server as its frame is read, and the link keeps the order of its frames);
 * - a response streams (a watch): each `write` reaches the client as written; the reply's
 *   `writableLength` counts bytes written and not yet read by the client, which acknowledges
 *   as it reads (the link's window and steps), so a client that stops reading shows as a growing
 *   `writableLength`, as a full socket would;
 * - either side may end an exchange early: the client's `destroy()` is, for the reply, the
 *   client gone (`close`, and writes go nowhere); the reply's `destroy()` is, for the client, a
 *   connection that failed (an `aborted` error, ECONNRESET, or the request's rejection when no
 *   status had come); a thread that ends closes its link and with it every exchange on it;
 * - `close` is emitted once on a reply, after `end()` or `destroy()` or the client gone, as
 *   `node:http` emits it on a response.
 */
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { IN_PROCESS_ADDRESS } from './in-process-socket.ts';
import {
  ACK_STEP,
  WINDOW,
  type Link,
  type LinkEnd,
  type RequestHead,
  type ResponseHead,
} from './message-port-link.ts';

export type { RequestHead, ResponseHead } from './message-port-link.ts';

/** Serves an exchange: what the server's request handler receives in place of HTTP's pair. */
export type ExchangeHandler = (request: ServedRequest, reply: ServedReply) => void;

function connectionError(message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: 'ECONNRESET' });
}

/** Every exchange's socket: one object serves them all, as it holds nothing of any. */
const EXCHANGE_SOCKET: { remoteAddress: string; setKeepAlive(): unknown } = {
  remoteAddress: IN_PROCESS_ADDRESS,
  setKeepAlive() {
    return EXCHANGE_SOCKET;
  },
};

/** The client's end: the response, readable as it arrives once `response` has resolved. */
export class ClientExchange extends Readable implements LinkEnd {
  statusCode?: number;
  headers: IncomingHttpHeaders = {};
  /** Whether the whole body has arrived. */
  complete = false;
  /** What a watch asks of a connection (keep-alive probes): nothing to do within a process. */
  readonly socket = EXCHANGE_SOCKET;
  readonly referenced = true;
  /** Resolves with this exchange once its status and headers have arrived. */
  readonly response: Promise<ClientExchange>;
  /**
   * Settles `response` until it is settled (the status arrived, or the request failed), then is
   * dropped: a watch's exchange lives for minutes.
   */
  private answer?: { resolve: (exchange: ClientExchange) => void; reject: (err: Error) => void };
  /** Read and not yet acknowledged to the server. */
  private unacked = 0;
  /** The link no longer carries it (complete, or closed by either side). */
  private over = false;

  constructor(
    private readonly link: Link,
    readonly id: number,
  ) {
    super();
    this.response = new Promise((resolve, reject) => (this.answer = { resolve, reject }));
    // A failure before the status is the request's, reported by `response`; never unhandled.
    this.response.catch(() => undefined);
  }

  answered(head: ResponseHead): void {
    this.statusCode = head.status;
    this.headers = head.headers;
    this.answer?.resolve(this);
    this.answer = undefined;
  }

  /** Fails `response`, unless it is settled already. */
  private fail(err: Error): void {
    this.answer?.reject(err);
    this.answer = undefined;
  }

  received(chunk: Buffer): void {
    this.unacked += chunk.length;
    if (this.push(chunk)) this.acknowledge();
  }

  override _read(): void {
    this.acknowledge();
  }

  /** Tells the server what was read, once there is a step's worth. */
  private acknowledge(): void {
    if (this.unacked < ACK_STEP || this.over) return;
    this.link.acknowledge(this.id, this.unacked);
    this.unacked = 0;
  }

  ended(): void {
    this.over = true;
    this.link.forget(this, false);
    this.complete = true;
    this.push(null);
  }

  acknowledged(): void {
    // The request went whole with its head; nothing of the client's is in flight.
  }

  peerGone(): void {
    this.over = true;
    if (this.answer) {
      this.fail(connectionError('socket hang up'));
      this.destroy();
    } else if (!this.complete) this.destroy(connectionError('aborted'));
  }

  override _destroy(err: Error | null, callback: (err: Error | null) => void): void {
    if (!this.over) {
      this.over = true;
      this.link.forget(this);
      this.fail(err ?? connectionError('socket hang up'));
    }
    // As `node:http`'s response: the error is emitted only to those listening for one.
    callback(this.listenerCount('error') > 0 ? err : null);
  }
}

/** The server's view of an exchange's request: what `ServerRequest` (apiserver/http) asks. */
export class ServedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders = {};
  readonly socket = { remoteAddress: IN_PROCESS_ADDRESS };
  private distinct?: NodeJS.Dict<string[]>;

  constructor(
    private readonly head: RequestHead,
    private body: Buffer | undefined,
  ) {
    this.method = head.method;
    this.url = head.url;
    const headers = head.headers;
    for (const name in headers) {
      const value = headers[name];
      this.headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
  }

  get headersDistinct(): NodeJS.Dict<string[]> {
    if (!this.distinct) {
      this.distinct = {};
      for (const [name, value] of Object.entries(this.head.headers))
        this.distinct[name] = Array.isArray(value) ? [...value] : [value];
    }
    return this.distinct;
  }

  resume(): this {
    this.body = undefined;
    return this;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    const body = this.body;
    this.body = undefined;
    if (body) yield body;
  }
}

/** The server's end of an exchange: the response, as `ServerReply` (apiserver/http) asks. */
export class ServedReply extends EventEmitter implements LinkEnd {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  destroyed = false;
  /** Bytes written and not yet read by the client. */
  writableLength = 0;
  readonly referenced = true;
  private head: Record<string, string | string[]> = {};
  private closed = false;
  /**
   * A HEAD request's reply carries no body. That is all the reply keeps of its request: a
   * watch's reply lives for minutes.
   */
  private readonly bodiless: boolean;

  constructor(
    private readonly link: Link,
    readonly id: number,
    request: ServedRequest,
  ) {
    super();
    this.bodiless = request.method === 'HEAD';
  }

  writeHead(statusCode: number, headers: OutgoingHttpHeaders = {}): this {
    this.statusCode = statusCode;
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined)
        this.head[name.toLowerCase()] = Array.isArray(value) ? value.map(String) : String(value);
    }
    return this;
  }

  flushHeaders(): void {
    if (this.headersSent || this.destroyed) return;
    this.headersSent = true;
    this.link.respond(this.id, { status: this.statusCode, headers: this.head });
  }

  write(chunk: string | Buffer): boolean {
    if (this.writableEnded || this.destroyed) return false;
    this.flushHeaders();
    // A string goes to the link as it is: its UTF-8 is written once, into the batch's buffer.
    const size = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (size > 0 && !this.bodiless) {
      this.link.data(this.id, [chunk], size);
      this.writableLength += size;
    }
    return this.writableLength < WINDOW;
  }

  end(chunk?: string | Buffer): this {
    if (this.writableEnded || this.destroyed) return this;
    if (chunk !== undefined) this.write(chunk);
    else this.flushHeaders();
    this.writableEnded = true;
    this.link.end(this.id);
    // The client forgets the exchange at its end too: nothing more is said of it either way.
    this.link.forget(this, false);
    process.nextTick(() => {
      this.emit('finish');
      this.close();
    });
    return this;
  }

  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    if (!this.writableEnded) this.link.forget(this);
    process.nextTick(() => this.close());
    return this;
  }

  received(): void {
    // The request's body came whole with its head.
  }

  ended(): void {
    // As above.
  }

  acknowledged(bytes: number): void {
    const before = this.writableLength;
    this.writableLength -= bytes;
    if (before >= WINDOW && this.writableLength < WINDOW) this.emit('drain');
  }

  peerGone(): void {
    this.destroyed = true;
    this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
  }
}
