/**
 * In-process sockets: Duplex streams that stand where `node:http` expects a `net.Socket`, for a
 * client and an HTTP server in the same process, without a file descriptor or a system call.
 * `socketPair()` joins two in one thread; message-port-socket.ts joins two across threads.
 *
 * Guarantees:
 * - what one end writes the other reads, in order, delivered on a later tick (never inside the
 *   writer's call, as with a real socket); a write's callback waits while the reader's buffer is
 *   full (backpressure);
 * - `end()` on one end is the end of the other's readable side; neither half stays open on its
 *   own (`allowHalfOpen: false`, as `net.Socket`'s default): an end that has read to its end ends
 *   its writable side too, and once both sides are done it closes;
 * - `destroy()` on one end is, for the other, the peer gone: it reads what was already sent, then
 *   its end; what it writes from then on is dropped; so a watch closed by either side frees both;
 * - they answer what `http.Agent`, `http.ClientRequest` and `http.Server` call on a socket:
 *   `setTimeout` (an idle timer that emits `timeout`, as net's), `setKeepAlive` and `setNoDelay`
 *   (nothing to do), `ref`/`unref`, `destroySoon`, `address()` and the `remote*`/`local*` fields
 *   (the loopback address, port 0), `connecting` (false).
 */
import { Duplex } from 'node:stream';

/** The address an in-process socket reports for either end (audit logs record it as the source). */
export const IN_PROCESS_ADDRESS = '127.0.0.1';

/** The part of `net.Socket` that `node:http` uses, over any transport. */
export abstract class InProcessSocket extends Duplex {
  readonly connecting = false;
  readonly remoteAddress = IN_PROCESS_ADDRESS;
  readonly remoteFamily = 'IPv4';
  readonly remotePort = 0;
  readonly localAddress = IN_PROCESS_ADDRESS;
  readonly localPort = 0;
  /** The idle timeout in ms (`net.Socket#timeout`), undefined when none is set. */
  timeout: number | undefined;
  private idle?: NodeJS.Timeout;
  /** When data last went either way, while a timeout is set (Date.now()). */
  private lastActive = 0;

  constructor() {
    super({ allowHalfOpen: false, emitClose: true, autoDestroy: true });
  }

  setTimeout(ms: number, callback?: () => void): this {
    if (callback) this.once('timeout', callback);
    clearTimeout(this.idle);
    this.idle = undefined;
    this.timeout = ms > 0 ? ms : undefined;
    if (ms > 0 && !this.destroyed) {
      this.lastActive = Date.now();
      this.arm(ms);
    }
    return this;
  }

  private arm(ms: number): void {
    this.idle = setTimeout(() => this.expire(), ms);
    this.idle.unref();
  }

  /** The timer ran out: `timeout` if nothing went either way since, else wait out the rest. */
  private expire(): void {
    this.idle = undefined;
    const ms = this.timeout;
    if (ms === undefined || this.destroyed) return;
    const idleFor = Date.now() - this.lastActive;
    if (idleFor < ms) this.arm(ms - idleFor);
    else this.emit('timeout');
  }

  setKeepAlive(): this {
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  address(): { address: string; family: string; port: number } {
    return { address: IN_PROCESS_ADDRESS, family: 'IPv4', port: 0 };
  }

  /** Ends the writable side, then closes (net.Socket's; `http.Server` calls it after a last response). */
  destroySoon(): void {
    if (this.writableFinished) this.destroy();
    else this.end(() => this.destroy());
  }

  /** Data went one way or the other: the idle time starts over (and, after a timeout, is watched again). */
  protected touch(): void {
    if (this.timeout === undefined) return;
    this.lastActive = Date.now();
    if (!this.idle && !this.destroyed) this.arm(this.timeout);
  }

  override _destroy(err: Error | null, callback: (err: Error | null) => void): void {
    clearTimeout(this.idle);
    this.idle = undefined;
    callback(err);
  }
}

/** One end of a pair in one thread. */
class PairSocket extends InProcessSocket {
  peer?: PairSocket;
  /** This end's write callback, held while the peer's readable buffer is full. */
  private held?: () => void;

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.touch();
    process.nextTick(() => this.deliver(chunk, callback));
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (err?: Error | null) => void): void {
    this.touch();
    const chunk = chunks.length === 1 ? chunks[0].chunk : Buffer.concat(chunks.map((entry) => entry.chunk));
    process.nextTick(() => this.deliver(chunk, callback));
  }

  private deliver(chunk: Buffer, callback: () => void): void {
    const peer = this.peer;
    // The peer is gone: as over a socket whose reader has closed, the bytes go nowhere.
    if (!peer) return callback();
    if (peer.receive(chunk)) callback();
    else this.held = callback;
  }

  private receive(chunk: Buffer): boolean {
    this.touch();
    return this.push(chunk);
  }

  override _read(): void {
    const held = this.peer?.held;
    if (!held) return;
    this.peer!.held = undefined;
    held();
  }

  override _final(callback: () => void): void {
    process.nextTick(() => {
      this.peer?.push(null);
      callback();
    });
  }

  override _destroy(err: Error | null, callback: (err: Error | null) => void): void {
    const peer = this.peer;
    const held = this.held;
    this.held = undefined;
    // After the deliveries already queued: what was written before the end is read.
    if (peer)
      process.nextTick(() => {
        this.peer = undefined;
        peer.peerGone();
      });
    super._destroy(err, (error) => {
      callback(error);
      held?.();
    });
  }

  /** The other end was destroyed: read what it sent, then the end; drop what is written. */
  private peerGone(): void {
    this.peer = undefined;
    if (!this.readableEnded) this.push(null);
    const held = this.held;
    this.held = undefined;
    held?.();
  }
}

/** Two connected in-process sockets: what one writes, the other reads. */
export function socketPair(): [InProcessSocket, InProcessSocket] {
  const a = new PairSocket();
  const b = new PairSocket();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
