/**
 * The fleet's in-process transport: how the fleet's own clients reach its API server without a
 * file descriptor. On the server's thread a connection is an in-memory socket pair; from a
 * controller worker each request is an exchange (the request and its response, not encoded as
 * HTTP) over the worker's acceptor port (`workerConnections`), which carries all of that worker's
 * exchanges and connections in the order written. Either way the server serves it with the
 * handler that serves TCP (`ApiServer.acceptConnection`, `acceptExchange`): the bearer token
 * checked, RBAC applied.
 *
 * Guarantees: after `serveInProcess(server)`, `inProcessUrl(server, plane)` names the plane
 * under the server's in-process origin (`http://apiserver-<pid>-<n>.in-process.invalid<basePath>`),
 * which reaches it from this thread and from any worker handed `workerConnections(server)`;
 * nothing in a kubeconfig written for users names it; `close()` unregisters the origin here
 * (the server's `stop()` ends the connections). A worker's exit closes its ports, and with them
 * every connection it held, on both sides.
 */
import type { MessagePort } from 'node:worker_threads';
import { MessageChannel } from 'node:worker_threads';
import type { ApiServer } from '../apiserver/server.ts';
import { inProcessOrigin, registerInProcess } from '../client/in-process.ts';
import { socketPair } from '../client/in-process-socket.ts';
import { acceptPorts, DEFAULT_PACING } from '../client/message-port-socket.ts';

/** What a worker needs to reach the server: its origin, and the port that carries new connections. */
export interface WorkerConnections {
  origin: string;
  acceptor: MessagePort;
}

const origins = new WeakMap<ApiServer, string>();
let served = 0;

/** Registers `server` in this thread under a new in-process origin. */
export function serveInProcess(server: ApiServer): { origin: string; close(): void } {
  const origin = inProcessOrigin(`apiserver-${process.pid}-${++served}`);
  const unregister = registerInProcess(origin, () => {
    const [client, accepted] = socketPair();
    server.acceptConnection(accepted);
    return client;
  });
  origins.set(server, origin);
  return {
    origin,
    close() {
      origins.delete(server);
      unregister();
    },
  };
}

/** The plane's URL under the server's in-process origin, when `serveInProcess` registered one. */
export function inProcessUrl(server: ApiServer, plane: string): string | undefined {
  const origin = origins.get(server);
  return origin && `${origin}${new URL(server.url(plane)).pathname.replace(/\/$/, '')}`;
}

/**
 * A new acceptor channel for one worker: connections and exchanges the worker opens through the
 * returned `acceptor` (to be transferred to it) are served by `server` on this thread.
 */
export function workerConnections(server: ApiServer): WorkerConnections {
  const origin = origins.get(server);
  if (!origin) throw new Error('the API server is not served in process: call serveInProcess first');
  const { port1, port2 } = new MessageChannel();
  acceptPorts(
    port1,
    (socket) => server.acceptConnection(socket),
    DEFAULT_PACING,
    (request, reply) => server.acceptExchange(request, reply),
  );
  // The server's own listeners keep this thread alive, not a worker's acceptor.
  port1.unref();
  return { origin, acceptor: port2 };
}
