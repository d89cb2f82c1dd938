/**
 * A link: one MessagePort between two threads carrying every connection (message-port-socket.ts)
 * and every exchange (message-port-exchange.ts) between them, as batches of frames.
 *
 * Guarantees (why each: message-port-socket.ts):
 * - order: what one thread sends on all the link's connections and exchanges is received by the
 *   other in the order it was sent;
 * - one message per batch: frames, the heads of exchanges, and the bytes in one transferred
 *   ArrayBuffer (a caller's Buffer is never detached); a batch is posted at the end of the turn
 *   that began it, or once it holds `postBytes` or has waited `postAfterMs`;
 * - a thread reads what it received for at most `readBudgetMs` per turn of its event loop;
 * - what the peer opens goes to `PeerOpened` (closed at once when nobody takes it); a port that
 *   closes (the other thread ended) is, for every end it carried, the peer gone;
 * - the port keeps its thread alive while any end it carries is referenced.
 */
import type { MessagePort } from 'node:worker_threads';

/** A request as the client made it: header names in lower case. */
export interface RequestHead {
  method: string;
  /** The path and query. */
  url: string;
  headers: Record<string, string | string[]>;
}

/** A response's status and headers (names in lower case). */
export interface ResponseHead {
  status: number;
  headers: Record<string, string | string[]>;
}

/** What takes the connections and exchanges the peer opens; each registers its end with the link. */
export interface PeerOpened {
  connection?(link: Link, id: number): void;
  exchange?(link: Link, id: number, head: RequestHead, body: Buffer | undefined): void;
}

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
/** An exchange's request (its head the batch's next head; `a`, `b`: its body's bytes). */
const REQUEST = 5;
/** An exchange's response status and headers (the batch's next head). */
const RESPONSE = 6;
const FRAME = 4;

/** One message of a link: every frame of a batch, in order, the heads and the bytes they carry. */
interface Batch {
  frames: number[];
  heads?: (RequestHead | ResponseHead)[];
  data?: ArrayBuffer;
}

/**
 * One end of what a link carries under one id: a connection (a socket) or an exchange (one
 * request and its response, client/message-port-exchange.ts).
 */
export interface LinkEnd {
  readonly id: number;
  /** Whether this end keeps its thread alive. */
  readonly referenced: boolean;
  /** Bytes from the peer. */
  received(chunk: Buffer): void;
  /** The peer's end of the stream: nothing more comes. */
  ended(): void;
  /** The peer has read `bytes` more of what this end sent. */
  acknowledged(bytes: number): void;
  /** The other end closed (or its thread ended). */
  peerGone(): void;
  /** An exchange's response head (client ends of exchanges only). */
  answered?(head: ResponseHead): void;
}

/**
 * One end of the port two threads share: every connection and exchange between them, in one
 * order.
 */
export class Link {
  private readonly ends = new Map<number, LinkEnd>();
  private nextId = 1;
  private frames: number[] = [];
  private heads: (RequestHead | ResponseHead)[] = [];
  /** The batch's bytes, in order: a string is its UTF-8, written straight into the batch when it is posted. */
  private chunks: (Buffer | string)[] = [];
  private size = 0;
  private immediate = false;
  /** When the batch's first frame was queued; undefined while nothing waits. */
  private started?: number;
  private referenced = 0;
  private closed = false;

  constructor(
    private readonly port: MessagePort,
    private readonly pacing: Pacing,
    private readonly peer: PeerOpened = {},
  ) {
    port.on('message', (batch: Batch) => this.arrived(batch));
    port.once('close', () => this.gone());
    // Only referenced connections keep the thread alive (`ref`).
    port.unref();
  }

  /** An id for a new connection or exchange from this end. */
  newId(): number {
    return this.nextId++;
  }

  /** Carries `end` (a new connection from this end, its id from `newId`) and tells the peer. */
  open<End extends LinkEnd>(end: End): End {
    this.register(end);
    this.frame(OPEN, end.id);
    return end;
  }

  /** Carries `end` (a new exchange from this end) and sends its request to the peer. */
  request<End extends LinkEnd>(end: End, head: RequestHead, body: Buffer | string | undefined): End {
    this.register(end);
    this.headed(REQUEST, end.id, head, body);
    return end;
  }

  /** The response head of the exchange `id`, which this end serves. */
  respond(id: number, head: ResponseHead): void {
    this.headed(RESPONSE, id, head, undefined);
  }

  /** The end of what this end sends on `id`. */
  end(id: number): void {
    this.frame(END, id);
  }

  /** Tells the peer that this end has read `bytes` more on `id`. */
  acknowledge(id: number, bytes: number): void {
    this.frame(ACK, id, bytes);
  }

  /** Carries `end` from now on: what the peer sends under its id goes to it. */
  register(end: LinkEnd): void {
    this.ends.set(end.id, end);
    this.ref();
  }

  private headed(
    kind: number,
    id: number,
    head: RequestHead | ResponseHead,
    body: Buffer | string | undefined,
  ): void {
    if (this.closed) return;
    this.heads.push(head);
    const size = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    this.frames.push(kind, id, this.size, size);
    this.carry(body === undefined ? [] : [body], size);
  }

  private frame(kind: number, id: number, a = 0, b = 0): void {
    if (this.closed) return;
    this.frames.push(kind, id, a, b);
    this.queued();
  }

  /** Bytes sent on `id`: `size` is theirs in all (a string's counted as its UTF-8). */
  data(id: number, chunks: (Buffer | string)[], size: number): void {
    if (this.closed) return;
    const last = this.frames.length - FRAME;
    // Written right after its last bytes: one part, one read at the other end.
    if (last >= 0 && this.frames[last] === DATA && this.frames[last + 1] === id)
      this.frames[last + 3] += size;
    else this.frames.push(DATA, id, this.size, size);
    this.carry(chunks, size);
  }

  /** Adds the bytes the frame just queued points at to the batch, and schedules its post. */
  private carry(chunks: (Buffer | string)[], size: number): void {
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

  /**
   * `end` is over on this end: its peer is told after what it was written (unless `tell` is
   * false: an exchange whose ends both know it is complete).
   */
  forget(end: LinkEnd, tell = true): void {
    if (this.ends.get(end.id) !== end) return;
    this.ends.delete(end.id);
    if (tell) this.frame(CLOSE, end.id);
    if (end.referenced) this.unref();
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
    if (this.heads.length > 0) {
      batch.heads = this.heads;
      this.heads = [];
    }
    if (this.size > 0) {
      const data = new ArrayBuffer(this.size);
      const bytes = Buffer.from(data);
      let offset = 0;
      for (const chunk of this.chunks) {
        if (typeof chunk === 'string') offset += bytes.write(chunk, offset);
        else {
          bytes.set(chunk, offset);
          offset += chunk.length;
        }
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

  private receive({ frames, heads, data }: Batch): void {
    let nextHead = 0;
    for (let i = 0; i < frames.length; i += FRAME) {
      const [kind, id, a, b] = [frames[i], frames[i + 1], frames[i + 2], frames[i + 3]];
      if (kind === OPEN) {
        // Nobody to take it: closed at once, as a refused connection.
        if (this.peer.connection) this.peer.connection(this, id);
        else this.frame(CLOSE, id);
        continue;
      }
      if (kind === REQUEST) {
        const head = heads![nextHead++] as RequestHead;
        const body = b > 0 ? Buffer.from(data!, a, b) : undefined;
        if (this.peer.exchange) this.peer.exchange(this, id, head, body);
        else this.frame(CLOSE, id);
        continue;
      }
      const end = this.ends.get(id);
      if (kind === RESPONSE) {
        const head = heads![nextHead++] as ResponseHead;
        end?.answered?.(head);
        continue;
      }
      // A connection this end has closed: what its peer sent meanwhile goes nowhere.
      if (!end) continue;
      if (kind === DATA) end.received(Buffer.from(data!, a, b));
      else if (kind === END) end.ended();
      else if (kind === ACK) end.acknowledged(a);
      else if (kind === CLOSE) {
        this.ends.delete(id);
        if (end.referenced) this.unref();
        end.peerGone();
      }
    }
  }

  /** The other thread closed the port or ended: every connection's peer is gone. */
  private gone(): void {
    for (const batch of this.inbox.splice(0)) this.receive(batch);
    this.closed = true;
    const ends = [...this.ends.values()];
    this.ends.clear();
    for (const end of ends) end.peerGone();
  }
}
