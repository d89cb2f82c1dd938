/**
 * An in-process socket across threads: a Duplex over a MessagePort, one channel per connection,
 * so that a client in a worker thread reaches an HTTP server on another thread of the same
 * process without a file descriptor or a system call. `portConnector` opens connections from the
 * client's thread through an acceptor port; `acceptPorts` serves them on the server's.
 *
 * Guarantees (besides in-process-socket.ts's):
 * - bytes cross as transferred ArrayBuffers: what a socket is written in one turn of the event
 *   loop (say, the watch events of every request served in it) is copied once into a buffer of
 *   its own at the turn's end (`setImmediate`), which is then moved, not cloned, to the other
 *   thread — one message, not one per write; a caller's Buffer is never detached;
 * - backpressure across the threads: at most `WINDOW` bytes are sent and not yet read by the
 *   other end; the reader acknowledges what it has read in steps of `ACK_STEP` bytes, and
 *   stops acknowledging while its own readable buffer is full;
 * - `end()` is a message after the last data; `destroy()` closes the port, which the other end
 *   sees once it has received every message sent before (Node delivers a port's queue before
 *   its `close`); a thread that exits closes its ports, so a worker's exit ends every
 *   connection it held, on both sides;
 * - `unref()` lets the thread exit while the connection is idle (the agent unrefs its idle
 *   keep-alive connections); `ref()` undoes it.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { InProcessSocket } from './in-process-socket.ts';

/** Bytes a writer may have sent and not yet had acknowledged. */
export const WINDOW = 1 << 20;
/** The reader acknowledges once it has read this many bytes. */
export const ACK_STEP = WINDOW / 4;

/** What crosses a connection's port: data (an ArrayBuffer), the end, or bytes read (a number). */
type Frame = ArrayBuffer | 'end' | number;

/** One end of a connection over a MessagePort. */
export class MessagePortSocket extends InProcessSocket {
  /** Sent and not yet acknowledged by the reader. */
  private inFlight = 0;
  /** Read and not yet acknowledged to the writer. */
  private unacked = 0;
  /** A write callback, held while `inFlight` is at the window. */
  private held?: () => void;
  /** Written in this turn of the event loop, posted together at its end (`flushAll`). */
  private unsent: Buffer[] = [];
  private unsentSize = 0;
  private portClosed = false;

  constructor(private readonly port: MessagePort) {
    super();
    port.on('message', (frame: Frame) => this.receive(frame));
    port.once('close', () => this.peerGone());
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
    if (this.portClosed) return callback();
    for (const chunk of chunks) this.unsent.push(chunk);
    this.unsentSize += size;
    toFlush.add(this);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flushAll);
    }
    this.inFlight += size;
    if (this.inFlight < WINDOW) callback();
    else this.held = callback;
  }

  /** Posts what was written since the last flush as one message (one copy, then moved). */
  flush(): void {
    const size = this.unsentSize;
    if (size === 0) return;
    const chunks = this.unsent;
    this.unsent = [];
    this.unsentSize = 0;
    toFlush.delete(this);
    if (this.portClosed) return;
    const data = new ArrayBuffer(size);
    const view = new Uint8Array(data);
    let offset = 0;
    for (const chunk of chunks) {
      view.set(chunk, offset);
      offset += chunk.length;
    }
    this.port.postMessage(data, [data]);
  }

  private receive(frame: Frame): void {
    if (typeof frame === 'number') {
      this.inFlight -= frame;
      const held = this.held;
      if (held && this.inFlight < WINDOW) {
        this.held = undefined;
        held();
      }
    } else if (frame === 'end') {
      this.push(null);
    } else {
      this.touch();
      this.unacked += frame.byteLength;
      if (this.push(Buffer.from(frame))) this.acknowledge();
    }
  }

  /** Tells the writer what was read, once there is a step's worth. */
  private acknowledge(): void {
    if (this.unacked < ACK_STEP || this.portClosed) return;
    this.port.postMessage(this.unacked);
    this.unacked = 0;
  }

  override _read(): void {
    this.acknowledge();
  }

  override _final(callback: () => void): void {
    this.flush();
    if (!this.portClosed) this.port.postMessage('end');
    callback();
  }

  override _destroy(err: Error | null, callback: (err: Error | null) => void): void {
    // What was written before the end is still read by the peer.
    this.flush();
    this.close();
    super._destroy(err, callback);
  }

  override ref(): this {
    this.port.ref();
    return this;
  }

  override unref(): this {
    this.port.unref();
    return this;
  }

  private close(): void {
    if (this.portClosed) return;
    this.portClosed = true;
    toFlush.delete(this);
    this.unsent = [];
    this.unsentSize = 0;
    this.port.close();
    const held = this.held;
    this.held = undefined;
    held?.();
  }

  /** The other end closed its port (or its thread ended): read to the end, drop what is written. */
  private peerGone(): void {
    this.close();
    if (!this.readableEnded) this.push(null);
  }
}

/** Sockets written to in this turn of the event loop; one `setImmediate` posts for them all. */
const toFlush = new Set<MessagePortSocket>();
let flushScheduled = false;

function flushAll(): void {
  flushScheduled = false;
  for (const socket of toFlush) socket.flush();
  toFlush.clear();
}

/** What an acceptor port carries: one new connection's port. */
interface Connection {
  port: MessagePort;
}

/**
 * Connections from this thread through `acceptor`: each a new MessageChannel, one port kept
 * here as the client's socket and the other moved to the thread that serves `acceptPorts`.
 */
export function portConnector(acceptor: MessagePort): () => MessagePortSocket {
  return () => {
    const { port1, port2 } = new MessageChannel();
    acceptor.postMessage({ port: port2 } satisfies Connection, [port2]);
    return new MessagePortSocket(port1);
  };
}

/** Serves every connection `acceptor` brings: `accept` receives each as a socket. */
export function acceptPorts(acceptor: MessagePort, accept: (socket: MessagePortSocket) => void): void {
  acceptor.on('message', ({ port }: Connection) => accept(new MessagePortSocket(port)));
}
