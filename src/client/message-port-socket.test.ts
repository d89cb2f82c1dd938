import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import type { Duplex } from 'node:stream';
import { MessageChannel, Worker } from 'node:worker_threads';
import {
  acceptPorts,
  DEFAULT_PACING,
  MessagePortSocket,
  portClient,
  WINDOW,
  type Pacing,
} from './message-port-socket.ts';

/** Time that stands still: only bytes and turns of the event loop decide when a batch is posted. */
const STILL: Pacing = { ...DEFAULT_PACING, now: () => 0 };

/**
 * One connection through a new acceptor channel: [the connecting end, the accepted end], each
 * end paced as given.
 */
async function connected(
  connecting: Pacing = STILL,
  accepting: Pacing = STILL,
): Promise<[MessagePortSocket, MessagePortSocket]> {
  const { port1, port2 } = new MessageChannel();
  const accepted = new Promise<MessagePortSocket>((resolve) => acceptPorts(port1, resolve, accepting));
  const a = portClient(port2, connecting).connect();
  return [a, await accepted];
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function readAll(socket: Duplex): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

/** Both ends closed (each read to its end: like a net.Socket, one closes only once its end is read). */
const closedBoth = (a: Duplex, b: Duplex) =>
  Promise.all([a, b].map((socket) => (socket.closed ? Promise.resolve() : once(socket.resume(), 'close'))));

describe('MessagePortSocket', () => {
  it('carries bytes both ways, in order', async () => {
    const [a, b] = await connected();
    a.write('one ');
    a.write('two ');
    b.write('back');
    a.end('three');
    b.end();
    const [atB, atA] = await Promise.all([readAll(b), readAll(a)]);
    assert.equal(atB, 'one two three');
    assert.equal(atA, 'back');
    await closedBoth(a, b);
  });

  it('posts what it is written in one turn of the event loop as one message', async () => {
    const [a, b] = await connected();
    const chunks: string[] = [];
    b.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    for (let i = 0; i < 10; i++) a.write(`${i}`);
    await nextTurn();
    a.write('next turn');
    a.end();
    await once(b, 'end');
    assert.deepEqual(chunks, ['0123456789', 'next turn']);
    await closedBoth(a, b);
  });

  it('posts a batch before the turn ends once it holds postBytes', async () => {
    const [a, b] = await connected({ ...STILL, postBytes: 4 });
    const chunks: string[] = [];
    b.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    for (const part of ['01', '23', '45']) a.write(part);
    a.end();
    await once(b, 'end');
    assert.deepEqual(chunks, ['0123', '45']);
    await closedBoth(a, b);
  });

  it('posts a batch before the turn ends once its first frame has waited postAfterMs', async () => {
    let now = 0;
    const [a, b] = await connected({ ...STILL, postAfterMs: 1, now: () => now });
    const chunks: string[] = [];
    b.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    a.write('a');
    now = 0.5;
    a.write('b');
    now = 1;
    a.write('c');
    a.write('d');
    a.end();
    await once(b, 'end');
    assert.deepEqual(chunks, ['abc', 'd']);
    await closedBoth(a, b);
  });

  it('reads no longer than readBudgetMs before its event loop turns', async () => {
    // Every write its own batch at the writer; the reader reads one batch per turn.
    const [a, b] = await connected({ ...STILL, postBytes: 1 }, { ...STILL, readBudgetMs: 0 });
    const seen: string[] = [];
    b.on('data', (chunk: Buffer) => {
      seen.push(chunk.toString());
      setImmediate(() => seen.push(`turn after ${chunk.toString()}`));
    });
    for (const part of ['x', 'y', 'z']) a.write(part);
    a.end();
    await once(b, 'end');
    await nextTurn();
    assert.deepEqual(seen, ['x', 'turn after x', 'y', 'turn after y', 'z', 'turn after z']);
    await closedBoth(a, b);
  });

  it('never detaches the buffer a caller wrote', async () => {
    const [a, b] = await connected();
    // Small Buffers share one pooled ArrayBuffer: moving it would empty the others.
    const first = Buffer.from('first');
    const second = Buffer.from('second');
    assert.equal(first.buffer, second.buffer, 'pooled');
    const read = readAll(b);
    a.end(first);
    assert.equal(await read, 'first');
    assert.equal(first.toString(), 'first');
    assert.equal(second.toString(), 'second');
    await closedBoth(a, b);
  });

  it('holds writes once a window of bytes is unread, and releases them as the reader reads', async () => {
    const [a, b] = await connected();
    b.pause();
    let acknowledged = 0;
    const writes: Promise<void>[] = [];
    // Three windows' worth, in 64 KiB writes.
    for (let i = 0; i < (3 * WINDOW) / (64 * 1024); i++)
      writes.push(
        new Promise((resolve) => a.write(Buffer.alloc(64 * 1024, i), () => resolve(void acknowledged++))),
      );
    // Let every message cross; the writer may not have more than a window in flight.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(acknowledged <= WINDOW / (64 * 1024), `${acknowledged} writes done with the reader paused`);
    assert.ok(acknowledged > 0);
    let read = 0;
    b.on('data', (chunk: Buffer) => (read += chunk.length)).resume();
    await Promise.all(writes);
    a.end();
    await once(b, 'end');
    assert.equal(read, 3 * WINDOW);
    await closedBoth(a, b);
  });

  it('on destroy(), lets the peer read what was sent, then its end, and drops what the peer writes', async () => {
    const [a, b] = await connected();
    a.write('sent before');
    a.destroy();
    const wrote = new Promise<void>((resolve, reject) =>
      b.write('to no one', (err) => (err ? reject(err) : resolve())),
    );
    assert.equal(await readAll(b), 'sent before');
    await wrote;
    await closedBoth(a, b);
  });

  it('releases a writer waiting on the window when the reader is destroyed', async () => {
    const [a, b] = await connected();
    b.pause();
    const waiting = new Promise<void>((resolve) => a.write(Buffer.alloc(2 * WINDOW), () => resolve()));
    await new Promise((resolve) => setImmediate(resolve));
    b.destroy();
    await waiting;
    await closedBoth(a, b);
  });

  it('unrefs and refs its port with the socket', async () => {
    const [a, b] = await connected();
    assert.equal(a.unref(), a);
    assert.equal(a.ref(), a);
    a.destroy();
    await closedBoth(a, b);
  });
});

describe('connections through an acceptor port', () => {
  it('serves many connections at once over one port', async () => {
    const { port1, port2 } = new MessageChannel();
    const served: string[] = [];
    acceptPorts(port1, (socket) => {
      socket.once('data', (chunk: Buffer) => {
        served.push(chunk.toString());
        socket.end(`echo ${chunk}`);
      });
    });
    const { connect } = portClient(port2);
    const answers = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const socket = connect();
        socket.write(`c${i}`);
        return readAll(socket);
      }),
    );
    assert.deepEqual(
      answers,
      Array.from({ length: 100 }, (_, i) => `echo c${i}`),
    );
    assert.equal(served.length, 100);
    port1.close();
  });

  it('delivers what one turn wrote to several connections in the order it was written', async () => {
    // A thread dispatches messages waiting on several ports in the order the ports were made:
    // with a port per connection, a request written later on an older connection was served
    // before one written earlier on a newer connection (S109: a controller's release overtaken).
    const { port1, port2 } = new MessageChannel();
    const read: string[] = [];
    let accepted = 0;
    acceptPorts(port1, (socket) => {
      accepted++;
      socket.on('data', (chunk: Buffer) => read.push(chunk.toString()));
    });
    const { connect } = portClient(port2);
    const sockets = Array.from({ length: 5 }, () => connect());
    while (accepted < 5) await new Promise((resolve) => setImmediate(resolve));
    const order = [4, 1, 3, 0, 2, 4, 0];
    for (const i of order) sockets[i].write(`c${i}`);
    const expected = order.map((i) => `c${i}`).join('');
    while (read.join('').length < expected.length) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(read.join(''), expected);
    for (const socket of sockets) socket.destroy();
    port1.close();
  });

  it('closes every connection a worker held, on this side, when the worker exits', async () => {
    const { port1, port2 } = new MessageChannel();
    const sockets: MessagePortSocket[] = [];
    const greeted: Promise<string>[] = [];
    acceptPorts(port1, (socket) => {
      sockets.push(socket);
      greeted.push(
        new Promise((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString()))),
      );
    });
    // The worker speaks the frames of message-port-socket.ts by hand: [kind, connection, a, b],
    // OPEN (0) then DATA (1) at an offset and length of the message's moved ArrayBuffer.
    const worker = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       const { acceptor } = workerData;
       acceptor.on('message', () => undefined);
       for (let id = 1; id <= 20; id++) {
         const hello = new TextEncoder().encode('hello ' + id).buffer;
         acceptor.postMessage({ frames: [0, id, 0, 0, 1, id, 0, hello.byteLength], data: hello }, [hello]);
       }
       parentPort.on('message', () => process.exit(0));`,
      { eval: true, workerData: { acceptor: port2 }, transferList: [port2] },
    );
    while (sockets.length < 20) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      (await Promise.all(greeted)).sort(),
      Array.from({ length: 20 }, (_, i) => `hello ${i + 1}`).sort(),
    );
    for (const socket of sockets) socket.resume();
    assert.ok(sockets.every((socket) => !socket.closed));
    worker.postMessage('exit');
    await once(worker, 'exit');
    await Promise.all(sockets.map((socket) => (socket.closed ? Promise.resolve() : once(socket, 'close'))));
    port1.close();
  });
});
