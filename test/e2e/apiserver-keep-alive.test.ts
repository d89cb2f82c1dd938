/**
 * A keep-alive HTTPS connection carries its next request whatever the state of the previous
 * response: a client that sends a request while the server still holds unsent bytes of the
 * last response (pipelining, or a client that reads slowly) gets both answers, in order, on
 * the same connection — never a reset connection.
 */
import assert from 'node:assert/strict';
import { connect, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/apiserver.ts';
import { call } from '../support/child-server.ts';
import { targetOf } from '../support/hostile.ts';

const MiB = 1024 * 1024;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const ON_HUB = `/planes/hub${CONFIGMAPS}`;

interface Response {
  status: number;
  body: Buffer;
}

/** Splits a connection's bytes into HTTP/1.1 responses (each framed by Content-Length). */
function responses(bytes: Buffer): Response[] {
  const found: Response[] = [];
  let at = 0;
  while (at < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const head = bytes.subarray(at, headEnd).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    const bodyStart = headEnd + 4;
    if (bodyStart + length > bytes.length) break;
    found.push({ status: Number(head.split(' ')[1]), body: bytes.subarray(bodyStart, bodyStart + length) });
    at = bodyStart + length;
  }
  return found;
}

describe('keep-alive connections', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['hub']);
    const admin = targetOf(t.server, 'hub', t.server.adminToken);
    // Four objects of 1.2 MiB: their list is far more than a socket's buffers hold unread.
    for (let i = 0; i < 4; i++) {
      const res = await call(admin, 'POST', CONFIGMAPS, {
        metadata: { name: `big-${i}` },
        data: { big: 'q'.repeat(1.2 * MiB) },
      });
      assert.equal(res.status, 201, res.body);
    }
    admin.agent.destroy();
  });
  after(async () => t.stop());

  it(
    'answers a request sent before the previous response was read, on the same connection',
    { timeout: 60_000 },
    async () => {
      const socket: TLSSocket = connect({
        host: '127.0.0.1',
        port: t.server.port,
        ca: t.server.certificates.caCertPem,
        servername: 'localhost',
      });
      const received: Buffer[] = [];
      const closed = new Promise<Error | undefined>((resolve) => {
        socket.on('error', resolve);
        socket.on('close', () => resolve(undefined));
      });
      const auth = `Authorization: Bearer ${t.server.adminToken}\r\nHost: localhost\r\n`;
      // The list (about 5 MiB); once its first bytes arrive the client stops reading, so the server
      // is left holding most of the response unsent.
      socket.write(`GET ${ON_HUB} HTTP/1.1\r\n${auth}\r\n`);
      await new Promise<void>((resolve) =>
        socket.once('data', (chunk: Buffer) => {
          received.push(chunk);
          socket.pause();
          resolve();
        }),
      );
      // The next request, its body spanning several TLS records that reach the server together; the
      // server closes the connection once it has answered it.
      const body = JSON.stringify({ metadata: { name: 'next' }, data: { small: 'x'.repeat(200_000) } });
      socket.write(
        `POST ${ON_HUB} HTTP/1.1\r\n${auth}Connection: close\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      socket.resume();
      const error = await closed;

      const answers = responses(Buffer.concat(received));
      assert.equal(error, undefined, `the connection failed: ${error?.message}`);
      assert.deepEqual(
        answers.map((r) => r.status),
        [200, 201],
      );
      assert.equal(JSON.parse(answers[0].body.toString()).items.length, 4);
      assert.equal(JSON.parse(answers[1].body.toString()).metadata.name, 'next');
    },
  );
});
