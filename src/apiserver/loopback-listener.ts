/**
 * The plain-HTTP loopback listener: the same API, on 127.0.0.1 without TLS, for clients running
 * in the server's own process (`netpresence up`'s controllers, propagation engine and cells),
 * which would otherwise spend a tenth of the fleet's CPU encrypting and decrypting traffic that
 * never leaves the process.
 *
 * Guarantees: it listens on 127.0.0.1 only (an ephemeral port), never on the server's `--host`;
 * every request is served by the server's own handler, so it is authenticated (bearer token) and
 * authorised exactly as over HTTPS — no token, 401. It is not named in any kubeconfig written
 * for users. `close()` stops listening and ends every connection, watches included.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export const LOOPBACK_HOST = '127.0.0.1';

export interface LoopbackListener {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  close(): Promise<void>;
}

export async function listenLoopback(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  keepAliveTimeoutMs: number,
): Promise<LoopbackListener> {
  const sockets = new Set<Socket>();
  const server = createServer(handler);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = keepAliveTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK_HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${LOOPBACK_HOST}:${port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
