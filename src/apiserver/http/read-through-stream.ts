/**
 * The HTTPS listener's connections are read through their socket's stream, not by the HTTP
 * parser straight from the TLS handle.
 *
 * Why: Node 20's HTTP server stops reading a connection when the next request's headers arrive
 * while the previous response is still unsent (it pauses the socket and its parser, so that a
 * client cannot queue work faster than it reads). When the parser consumes the TLS handle
 * directly, the handle goes on handing it the rest of what one read decrypted — several TLS
 * records when the server was busy while they arrived. The paused parser refuses them as a
 * parse error (`HPE_PAUSED`), and the server destroys the connection in the middle of the
 * request: the client sees its request reset (ECONNRESET) and the server logs it as aborted.
 * A socket read through its stream keeps what arrives while it is paused and hands it to the
 * parser when it resumes. Node's server stops consuming the handle once anyone listens to the
 * socket's 'data'; this listener ignores what it sees (the server's own listener parses it).
 *
 * Guarantee: a keep-alive HTTPS connection is never reset for a request sent before the
 * previous response was read (test/e2e/apiserver-keep-alive.test.ts). Plain listeners (the
 * loopback socket, in-process connections) read one buffer per read and need nothing.
 */
import type { TLSSocket } from 'node:tls';

export function readThroughStream(socket: TLSSocket): void {
  socket.on('data', ignore);
}

function ignore(): void {}
