/**
 * In-process servers: origins (`http://<name>.in-process.invalid`) that a kubeconfig may name
 * for an API server in the client's own process, and the connectors that reach them — a function
 * returning a Duplex (in-process-socket.ts, message-port-socket.ts) in place of a TCP socket.
 * The composer of the process (the fleet) registers them; the transport (transport.ts) asks here
 * before it would open a socket.
 *
 * Guarantees:
 * - a URL whose origin is registered gets a keep-alive `http.Agent` whose connections are the
 *   connector's, one agent for requests and one for watches per origin (as transport.ts keeps
 *   them apart for TCP), so requests and watches hold no file descriptor;
 * - a URL under `.in-process.invalid` whose origin is not registered in this thread is refused
 *   with an error naming it (the name cannot resolve anyway; `.invalid` never does);
 * - an origin registered with an `exchange` function (a worker's link to the server's thread,
 *   message-port-exchange.ts) is reached by exchanges, not HTTP: `inProcessExchange` returns it
 *   and the transport sends each request through it; its agents still serve anything that
 *   asks for a connection;
 * - `registerInProcess` returns its undoing: the origin's agents are destroyed, and with them
 *   their idle connections.
 */
import * as http from 'node:http';
import type { Duplex } from 'node:stream';
import type { ClientExchange, RequestHead } from './message-port-exchange.ts';

/** Sends one request as an exchange; a string body is sent as its UTF-8. */
export type Exchange = (head: RequestHead, body: Buffer | string | undefined) => ClientExchange;

/** The domain every in-process origin is under: reserved, so never a host on a network. */
export const IN_PROCESS_DOMAIN = 'in-process.invalid';

export const inProcessMessages = {
  notRegistered: (origin: string) =>
    `${origin} names an API server in another process or thread: no connection to it is registered in this one`,
};

/** An origin for a new in-process server: `http://<name>.in-process.invalid`. */
export function inProcessOrigin(name: string): string {
  return `http://${name}.${IN_PROCESS_DOMAIN}`;
}

/** An agent whose every connection is one the connector makes. */
class ConnectorAgent extends http.Agent {
  constructor(private readonly connect: () => Duplex) {
    super({ keepAlive: true });
  }

  override createConnection(): Duplex {
    return this.connect();
  }
}

interface Registered {
  requests: ConnectorAgent;
  watches: ConnectorAgent;
  exchange?: Exchange;
}

const registered = new Map<string, Registered>();

/** Connections to `origin` are made by `connect` from now on, until the returned function is called. */
export function registerInProcess(origin: string, connect: () => Duplex, exchange?: Exchange): () => void {
  const entry = { requests: new ConnectorAgent(connect), watches: new ConnectorAgent(connect), exchange };
  registered.set(new URL(origin).origin, entry);
  return () => {
    if (registered.get(new URL(origin).origin) !== entry) return;
    registered.delete(new URL(origin).origin);
    entry.requests.destroy();
    entry.watches.destroy();
  };
}

/**
 * The agent for a request to `url` when it names an in-process server (`longLived`: a watch's),
 * undefined for any other URL; throws for an in-process origin not registered here.
 */
export function inProcessAgent(url: URL, longLived: boolean): http.Agent | undefined {
  const entry = inProcessEntry(url);
  return entry && (longLived ? entry.watches : entry.requests);
}

/** How to send a request to `url` as an exchange, when its in-process origin takes them. */
export function inProcessExchange(url: URL): Exchange | undefined {
  return inProcessEntry(url)?.exchange;
}

function inProcessEntry(url: URL): Registered | undefined {
  const entry = registered.get(url.origin);
  if (entry) return entry;
  if (url.hostname.endsWith(`.${IN_PROCESS_DOMAIN}`))
    throw new Error(inProcessMessages.notRegistered(url.origin));
  return undefined;
}
