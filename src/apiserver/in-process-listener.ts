/**
 * The in-process listener: the same API over connections handed to it as any Duplex stream —
 * an in-memory socket from the server's own thread, a MessagePort's from a worker thread of its
 * process — so that the fleet's own clients reach the server without a file descriptor or a
 * system call (a TCP connection inside one process holds two descriptors, the client's and the
 * server's, and costs a write and a read per message).
 *
 * Guarantees: a plain-HTTP `http.Server` that never listens; each accepted connection is served
 * by the server's own handler, so it is authenticated (bearer token) and authorised exactly as
 * over HTTPS or the loopback listener — no token, 401. Idle keep-alive connections are closed
 * after `keepAliveTimeoutMs`, as on the other listeners. It also serves exchanges — a request and
 * its reply handed over without HTTP (client/message-port-exchange.ts) — by the same handler.
 * `close()` ends every connection and exchange, watches included; one accepted after it is
 * destroyed at once.
 */
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ServerReply, ServerRequest } from './http/exchange.ts';

export class InProcessListener {
  private readonly server;
  private readonly sockets = new Set<Duplex>();
  private readonly replies = new Set<ServerReply>();
  private closed = false;

  constructor(
    private readonly handler: (req: ServerRequest, res: ServerReply) => void,
    keepAliveTimeoutMs: number,
  ) {
    this.server = createServer(handler);
    this.server.keepAliveTimeout = keepAliveTimeoutMs;
  }

  /** Serves one exchange until its reply ends or either side closes it. */
  serve(req: ServerRequest, res: ServerReply): void {
    if (this.closed) {
      res.destroy();
      return;
    }
    this.replies.add(res);
    res.once('close', () => this.replies.delete(res));
    this.handler(req, res);
  }

  /** Serves one connection until either end closes it. */
  accept(socket: Duplex): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    // What `net.Server` does with an accepted socket; `http.Server` asks nothing more of it
    // than in-process-socket.ts provides.
    this.server.emit('connection', socket as Socket);
  }

  /** Connections open now (for tests and the fleet's own accounting). */
  get connections(): number {
    return this.sockets.size;
  }

  close(): void {
    this.closed = true;
    for (const socket of this.sockets) socket.destroy();
    for (const reply of this.replies) reply.destroy();
  }
}
