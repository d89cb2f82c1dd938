/**
 * What the API server uses of a request and of its response: the part of `node:http`'s
 * `IncomingMessage` and `ServerResponse` its handlers read and write, so that a request may reach
 * them either as HTTP (TLS, the loopback listener, an in-process socket) or as a structured
 * exchange from a worker thread of the process (client/message-port-exchange.ts), which carries
 * the same method, URL, headers and body without encoding them as HTTP.
 *
 * Guarantees: `node:http`'s own objects satisfy both interfaces unchanged; a handler written
 * against them behaves the same whichever carried the request.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

export interface ServerRequest extends AsyncIterable<unknown> {
  readonly method?: string;
  readonly url?: string;
  /** Header names in lower case; repeated headers joined as `node:http` joins them. */
  readonly headers: IncomingHttpHeaders;
  /** Every value of each header, as sent. */
  readonly headersDistinct: NodeJS.Dict<string[]>;
  readonly socket: { readonly remoteAddress?: string };
  /** Discards the rest of the body. */
  resume(): unknown;
}

export interface ServerReply {
  statusCode: number;
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  /** Bytes written and not yet taken by the client. */
  readonly writableLength: number;
  readonly destroyed: boolean;
  writeHead(statusCode: number, headers?: OutgoingHttpHeaders): unknown;
  /** Sends the status and headers now, before any body. */
  flushHeaders(): void;
  write(chunk: string | Buffer): boolean;
  end(chunk?: string | Buffer): unknown;
  /** Closes the response unfinished: the client sees its connection fail. */
  destroy(): unknown;
  /** `close`: the response is over, finished or not. */
  once(event: 'close', listener: () => void): unknown;
  on(event: 'close', listener: () => void): unknown;
}
