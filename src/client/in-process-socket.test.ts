import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import type { Duplex } from 'node:stream';
import { socketPair } from './in-process-socket.ts';

/** Everything `socket` reads until its end. */
async function readAll(socket: Duplex): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

describe('socketPair', () => {
  it('carries bytes both ways, in order, on a later tick than the write', async () => {
    const [a, b] = socketPair();
    const seen: string[] = [];
    b.on('data', (chunk: Buffer) => seen.push(`b:${chunk}`));
    a.on('data', (chunk: Buffer) => seen.push(`a:${chunk}`));
    a.write('one');
    a.write('two');
    b.write('back');
    assert.equal(seen.length, 0, 'nothing is read inside the write');
    a.end('three');
    b.end();
    await Promise.all([once(a, 'close'), once(b, 'close')]);
    // A byte stream: writes made in one tick may arrive as one chunk.
    const read = (end: string) =>
      seen
        .filter((s) => s.startsWith(end))
        .map((s) => s.slice(2))
        .join('');
    assert.equal(read('b:'), 'onetwothree');
    assert.equal(read('a:'), 'back');
  });

  it('holds a write while the reader does not read, and releases it when it does', async () => {
    const [a, b] = socketPair();
    b.pause();
    let written = 0;
    const write = (size: number) =>
      new Promise<void>((resolve) => a.write(Buffer.alloc(size), () => resolve()));
    await write(1024);
    written++;
    // This fills the reader's buffer (16 KiB): its callback waits until the reader reads.
    const second = write(64 * 1024).then(() => written++);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(written, 1);
    assert.equal(a.writableNeedDrain, true);
    b.resume();
    await second;
    assert.equal(written, 2);
    a.destroy();
    b.destroy();
  });

  it('ends the peer on end(), and both close once both sides are done', async () => {
    const [a, b] = socketPair();
    a.end('last words');
    assert.equal(await readAll(b), 'last words');
    // The reader's writable side ended by itself (no half-open), so the writer reads its end too.
    assert.equal(await readAll(a), '');
    await Promise.all([a, b].map((socket) => (socket.closed ? Promise.resolve() : once(socket, 'close'))));
  });

  it('on destroy(), lets the peer read what was sent, then its end, and drops what the peer writes', async () => {
    const [a, b] = socketPair();
    a.write('sent before');
    a.destroy();
    const wrote = new Promise<void>((resolve, reject) =>
      b.write('to no one', (err) => (err ? reject(err) : resolve())),
    );
    assert.equal(await readAll(b), 'sent before');
    await wrote;
    if (!b.closed) await once(b, 'close');
  });

  it('releases a write held by a full reader when the reader is destroyed', async () => {
    const [a, b] = socketPair();
    b.pause();
    a.write(Buffer.alloc(64 * 1024));
    const held = new Promise<void>((resolve) => a.write(Buffer.alloc(64 * 1024), () => resolve()));
    await new Promise((resolve) => setImmediate(resolve));
    b.destroy();
    await held;
    a.destroy();
  });

  it('emits timeout after the idle time set, and not while data flows', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const [a, b] = socketPair();
    b.resume();
    let timeouts = 0;
    a.setTimeout(1000, () => timeouts++);
    assert.equal(a.timeout, 1000);
    t.mock.timers.tick(900);
    a.write('activity');
    t.mock.timers.tick(900);
    assert.equal(timeouts, 0);
    t.mock.timers.tick(100);
    assert.equal(timeouts, 1);
    a.setTimeout(0);
    assert.equal(a.timeout, undefined);
    t.mock.timers.tick(5000);
    assert.equal(timeouts, 1);
    a.destroy();
    b.destroy();
  });

  it('answers what node:http asks of a socket', () => {
    const [a] = socketPair();
    assert.equal(a.setKeepAlive(), a);
    assert.equal(a.setNoDelay(), a);
    assert.equal(a.ref(), a);
    assert.equal(a.unref(), a);
    assert.equal(a.connecting, false);
    assert.equal(a.remoteAddress, '127.0.0.1');
    assert.deepEqual(a.address(), { address: '127.0.0.1', family: 'IPv4', port: 0 });
    a.destroy();
  });
});
