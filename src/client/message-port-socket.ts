/**
 * In-process sockets across threads: Duplex streams carried over one MessagePort between two
 * threads (a link), so that clients in a worker thread reach an HTTP server on another thread of
 * the same process without a file descriptor or a system call. `portClient` opens connections
 * from the client's thread through an acceptor port; `acceptPorts` serves them on the server's.
 *
 * Guarantees (besides in-process-socket.ts's):
 * - order across connections: what one thread writes to several connections of a link is read by
 *   the other thread in the order it was written, as over loopback TCP (the kernel hands a busy
 *   reader its sockets in the order their data arrived). Every connection of a link shares its
 *   one port: a thread that is busy dispatches the messages waiting on several ports in the
 *   order the ports were created, not the order they were posted, so one port per connection let
 *   a request written later on an older connection be served before one written earlier on a
 *   newer connection (a controller's release overtaken by another's, S109);
 * - bytes cross as one transferred ArrayBuffer per batch: what a thread writes to its connections
 *   of a link is copied once into a buffer of its own and moved, not cloned, to the other thread,
 *   with the frames that say which connection each part is for — one message, not one per write
 *   or per connection; a caller's Buffer is never detached. A batch is posted at the end of the
 *   turn of the event loop that began it (`setImmediate`), or as soon as it holds `postBytes` or
 *   has waited `postAfterMs` on the thread's own work, whichever comes first;
 * - a thread reads what it received for at most `readBudgetMs` per turn of its event loop (at
 *   least one batch), then serves its timers and sockets before it reads on.
 *   Why both: two busy threads that exchange one batch per turn take turns instead of working
 *   at once — each waits for the other's whole turn (in a burst, ~100 ms), both half idle, which
 *   bounded a 1,000-binding burst (bench/README.md, "The transport's lockstep"). Posting early
 *   lets the peer start on the first requests of a turn while this thread makes the rest; reading
 *   within a budget keeps the many small batches that follow from holding a thread's event loop
 *   for seconds (Node drains up to a thousand waiting messages in one go), which starved the
 *   server's TCP clients;
 * - backpressure per connection: at most `WINDOW` bytes are sent and not yet read by the other
 *   end; the reader acknowledges what it has read in steps of `ACK_STEP` bytes, and stops
 *   acknowledging while its own readable buffer is full;
 * - `end()` is a frame after the last data; `destroy()` is a frame after what was already
 *   written, so the peer reads that first; a thread that exits closes the link's port, which
 *   ends every connection of the link on the other side;
 * - `unref()` lets the thread exit while the connection is idle (the agent unrefs its idle
 *   keep-alive connections); `ref()` undoes it. The link's port keeps its thread alive while any
 *   of its connections is referenced.
 */
import type { MessagePort } from 'node:worker_threads';
import { InProcessSocket } from './in-process-socket.ts';
import { ClientExchange, ServedReply, ServedRequest, type ExchangeHandler } from './message-port-exchange.ts';
import {
  ACK_STEP,
  DEFAULT_PACING,
  Link,
  WINDOW,
  type LinkEnd,
  type RequestHead,
} from './message-port-link.ts';

export { ACK_STEP, DEFAULT_PACING, WINDOW, type Pacing } from './message-port-link.ts';

/** One end of a connection over a link. */
export class MessagePortSocket extends InProcessSocket implements LinkEnd {
  /** Sent and not yet acknowledged by the reader. */
  private inFlight = 0;
  /** Read and not yet acknowledged to the writer. */
  private unacked = 0;
  /** A write callback, held while `inFlight` is at the window. */
  private held?: () => void;
  /** Closed on this end, or its peer gone: nothing more is sent. */
  private detached = false;
  /** Whether this connection keeps its thread alive (`ref`/`unref`). */
  referenced = true;

  constructor(
    private readonly link: Link,
    readonly id: number,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.send([chunk], chunk.length, callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (err?: Error | null) => void): void {
    let size = 0;
    for (const { chunk } of chunks) size += chunk.length;
    this.send(
      chunks.map((entry) => entry.chunk),
      size,
      callback,
    );
  }

  private send(chunks: Buffer[], size: number, callback: () => void): void {
    this.touch();
    // The peer is gone: as over a socket whose reader has closed, the bytes go nowhere.
    if (this.detached) return callback();
    this.link.data(this.id, chunks, size);
    this.inFlight += size;
    if (this.inFlight < WINDOW) callback();
    else this.held = callback;
  }

  /** Bytes from the peer. */
  received(chunk: Buffer): void {
    this.touch();
    this.unacked += chunk.length;
    if (this.push(chunk)) this.acknowledge();
  }

  /** The peer has read `bytes` more of what this end sent. */
  acknowledged(bytes: number): void {
    this.inFlight -= bytes;
    const held = this.held;
    if (held && this.inFlight < WINDOW) {
      this.held = undefined;
      held();
    }
  }

  /** Tells the writer what was read, once there is a step's worth. */
  private acknowledge(): void {
    if (this.unacked < ACK_STEP || this.detached) return;
    this.link.acknowledge(this.id, this.unacked);
    this.unacked = 0;
  }

  ended(): void {
    this.push(null);
  }

  override _read(): void {
    this.acknowledge();
  }

  override _final(callback: () => void): void {
    if (!this.detached) this.link.end(this.id);
    callback();
  }

  override _destroy(err: Error | null, callback: (err: Error | null) => void): void {
    this.detach();
    super._destroy(err, callback);
  }

  override ref(): this {
    if (!this.referenced && !this.detached) {
      this.referenced = true;
      this.link.ref();
    }
    return this;
  }

  override unref(): this {
    if (this.referenced && !this.detached) {
      this.referenced = false;
      this.link.unref();
    }
    return this;
  }

  /** Nothing more goes to the peer; the peer is told after what was already written. */
  private detach(): void {
    if (this.detached) return;
    this.link.forget(this);
    this.detached = true;
    const held = this.held;
    this.held = undefined;
    held?.();
  }

  /** The other end closed (or its thread ended): read to the end, drop what is written. */
  peerGone(): void {
    if (!this.detached) {
      this.detached = true;
      const held = this.held;
      this.held = undefined;
      held?.();
    }
    if (!this.readableEnded) this.push(null);
  }
}

/** What a thread may open through an acceptor port: connections, and exchanges. */
export interface PortClient {
  connect: () => MessagePortSocket;
  request: (head: RequestHead, body: Buffer | string | undefined) => ClientExchange;
}

/**
 * Connections and exchanges from this thread through `acceptor`, all on its one port, to the
 * thread that serves `acceptPorts` on the other end of its channel.
 */
export function portClient(acceptor: MessagePort, pacing = DEFAULT_PACING): PortClient {
  const link = new Link(acceptor, pacing);
  return {
    connect: () => link.open(new MessagePortSocket(link, link.newId())),
    request: (head, body) => link.request(new ClientExchange(link, link.newId()), head, body),
  };
}

/**
 * Serves every connection and exchange `acceptor` brings: `accept` receives each connection as
 * a socket, `serve` each exchange as a request and its reply (an exchange is refused — its reply
 * destroyed — when there is no `serve`).
 */
export function acceptPorts(
  acceptor: MessagePort,
  accept: (socket: MessagePortSocket) => void,
  pacing = DEFAULT_PACING,
  serve?: ExchangeHandler,
): void {
  new Link(acceptor, pacing, {
    connection(link, id) {
      const socket = new MessagePortSocket(link, id);
      link.register(socket);
      accept(socket);
    },
    exchange(link, id, head, body) {
      const request = new ServedRequest(head, body);
      const reply = new ServedReply(link, id, request);
      link.register(reply);
      if (serve) serve(request, reply);
      else reply.destroy();
    },
  });
}
