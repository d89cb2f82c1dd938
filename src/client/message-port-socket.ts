/**
 * In-process sockets across threads: Duplex streams carried over one MessagePort between two
 * threads (a link), so that clients in a worker thread reach an HTTP server on another thread of
 * the same process without a file descriptor or a system call. `portConnector` opens connections
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

/** Bytes a writer may have sent and not yet had acknowledged. */
export const WINDOW = 1 << 20;
/** The reader acknowledges once it has read this many bytes. */
export const ACK_STEP = WINDOW / 4;

/**
 * When a thread posts what it has written and how long it reads what it received before its
 * event loop serves anything else (see the module comment for why).
 */
export interface Pacing {
  /** Posts the batch once it holds this many bytes. */
  postBytes: number;
  /** Posts the batch once its first frame has waited this long (ms) on the thread's work. */
  postAfterMs: number;
  /** Reads received batches for at most this long (ms) per turn of the event loop. */
  readBudgetMs: number;
  /** The clock of the two above, in ms. */
  now: () => number;
}

/**
 * Measured on the 1,000-binding burst (bench/README.md, "The transport's lockstep"): posting after
 * 0.5–20 ms and reading 2–20 ms per turn all converged within one run's spread of each other; the
 * shortest read budget kept the server's TCP clients served best.
 */
export const DEFAULT_PACING: Pacing = {
  postBytes: 64 * 1024,
  postAfterMs: 1,
  readBudgetMs: 2,
  now: () => performance.now(),
};

/** What a frame says of its connection: four numbers, `[kind, id, a, b]`. */
const OPEN = 0;
/** `a`, `b`: offset and length of its bytes in the message's buffer. */
const DATA = 1;
const END = 2;
const CLOSE = 3;
/** `a`: bytes read. */
const ACK = 4;
const FRAME = 4;

/** One message of a link: every frame of a batch, in order, and the bytes they carry. */
interface Batch {
  frames: number[];
  data?: ArrayBuffer;
}

/** One end of the port two threads share: every connection between them, in one order. */
class Link {
  private readonly sockets = new Map<number, MessagePortSocket>();
  private nextId = 1;
  private frames: number[] = [];
  private chunks: Buffer[] = [];
  private size = 0;
  private immediate = false;
  /** When the batch's first frame was queued; undefined while nothing waits. */
  private started?: number;
  private referenced = 0;
  private closed = false;

  constructor(
    private readonly port: MessagePort,
    private readonly pacing: Pacing,
    private readonly accept?: (socket: MessagePortSocket) => void,
  ) {
    port.on('message', (batch: Batch) => this.arrived(batch));
    port.once('close', () => this.gone());
    // Only referenced connections keep the thread alive (`ref`).
    port.unref();
  }

  /** A new connection from this end. */
  open(): MessagePortSocket {
    const socket = this.add(this.nextId++);
    this.frame(OPEN, socket.id);
    return socket;
  }

  private add(id: number): MessagePortSocket {
    const socket = new MessagePortSocket(this, id);
    this.sockets.set(id, socket);
    this.ref();
    return socket;
  }

  frame(kind: number, id: number, a = 0, b = 0): void {
    if (this.closed) return;
    this.frames.push(kind, id, a, b);
    this.queued();
  }

  data(id: number, chunks: Buffer[], size: number): void {
    if (this.closed) return;
    const last = this.frames.length - FRAME;
    // Written right after its last bytes: one part, one read at the other end.
    if (last >= 0 && this.frames[last] === DATA && this.frames[last + 1] === id)
      this.frames[last + 3] += size;
    else this.frames.push(DATA, id, this.size, size);
    for (const chunk of chunks) this.chunks.push(chunk);
    this.size += size;
    this.queued();
  }

  /** Schedules the batch's post at the turn's end, or posts it now once it has grown or waited enough. */
  private queued(): void {
    const now = this.pacing.now();
    if (this.started === undefined) {
      this.started = now;
      if (!this.immediate) {
        this.immediate = true;
        setImmediate(() => {
          this.immediate = false;
          this.flush();
        });
      }
    }
    if (this.size >= this.pacing.postBytes || now - this.started >= this.pacing.postAfterMs) this.flush();
  }

  /** The connection `id` is closed on this end: its peer is told after what it was written. */
  forget(socket: MessagePortSocket): void {
    if (this.sockets.get(socket.id) !== socket) return;
    this.sockets.delete(socket.id);
    this.frame(CLOSE, socket.id);
    if (socket.referenced) this.unref();
  }

  ref(): void {
    if (this.referenced++ === 0 && !this.closed) this.port.ref();
  }

  unref(): void {
    if (--this.referenced === 0 && !this.closed) this.port.unref();
  }

  /** Posts the batch's frames and bytes as one message (one copy, then moved). */
  private flush(): void {
    this.started = undefined;
    if (this.closed || this.frames.length === 0) return;
    const batch: Batch = { frames: this.frames };
    this.frames = [];
    if (this.size > 0) {
      const data = new ArrayBuffer(this.size);
      const view = new Uint8Array(data);
      let offset = 0;
      for (const chunk of this.chunks) {
        view.set(chunk, offset);
        offset += chunk.length;
      }
      this.chunks = [];
      this.size = 0;
      batch.data = data;
      this.port.postMessage(batch, [data]);
    } else this.port.postMessage(batch);
  }

  /** Batches received and not yet read. */
  private readonly inbox: Batch[] = [];
  private reading = false;

  private arrived(batch: Batch): void {
    this.inbox.push(batch);
    if (!this.reading) {
      this.reading = true;
      setImmediate(() => this.read());
    }
  }

  /** Reads what has arrived for at most the read budget, then lets the loop serve its other work. */
  private read(): void {
    const started = this.pacing.now();
    let next = 0;
    while (next < this.inbox.length && (next === 0 || this.pacing.now() - started < this.pacing.readBudgetMs))
      this.receive(this.inbox[next++]);
    this.inbox.splice(0, next);
    if (this.inbox.length > 0) setImmediate(() => this.read());
    else this.reading = false;
  }

  private receive({ frames, data }: Batch): void {
    for (let i = 0; i < frames.length; i += FRAME) {
      const [kind, id, a, b] = [frames[i], frames[i + 1], frames[i + 2], frames[i + 3]];
      if (kind === OPEN) {
        const socket = this.add(id);
        if (this.accept) this.accept(socket);
        else socket.destroy();
        continue;
      }
      const socket = this.sockets.get(id);
      // A connection this end has closed: what its peer sent meanwhile goes nowhere.
      if (!socket) continue;
      if (kind === DATA) socket.received(Buffer.from(data!, a, b));
      else if (kind === END) socket.push(null);
      else if (kind === ACK) socket.acknowledged(a);
      else if (kind === CLOSE) {
        this.sockets.delete(id);
        if (socket.referenced) this.unref();
        socket.peerGone();
      }
    }
  }

  /** The other thread closed the port or ended: every connection's peer is gone. */
  private gone(): void {
    for (const batch of this.inbox.splice(0)) this.receive(batch);
    this.closed = true;
    const sockets = [...this.sockets.values()];
    this.sockets.clear();
    for (const socket of sockets) socket.peerGone();
  }
}

/** One end of a connection over a link. */
export class MessagePortSocket extends InProcessSocket {
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
    this.link.frame(ACK, this.id, this.unacked);
    this.unacked = 0;
  }

  override _read(): void {
    this.acknowledge();
  }

  override _final(callback: () => void): void {
    if (!this.detached) this.link.frame(END, this.id);
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

/**
 * Connections from this thread through `acceptor`, all on its one port, to the thread that
 * serves `acceptPorts` on the other end of its channel.
 */
export function portConnector(acceptor: MessagePort, pacing = DEFAULT_PACING): () => MessagePortSocket {
  const link = new Link(acceptor, pacing);
  return () => link.open();
}

/** Serves every connection `acceptor` brings: `accept` receives each as a socket. */
export function acceptPorts(
  acceptor: MessagePort,
  accept: (socket: MessagePortSocket) => void,
  pacing = DEFAULT_PACING,
): void {
  new Link(acceptor, pacing, accept);
}
