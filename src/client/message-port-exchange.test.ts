import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import type { ClientExchange, ExchangeHandler, ServedReply, ServedRequest } from './message-port-exchange.ts';
import { WINDOW } from './message-port-link.ts';
import { acceptPorts, portClient, type PortClient } from './message-port-socket.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A client of a new link whose exchanges `serve` answers (and whose connections are refused). */
function linked(serve?: ExchangeHandler): { client: PortClient; close: () => void } {
  const { port1, port2 } = new MessageChannel();
  acceptPorts(port1, (socket) => socket.destroy(), undefined, serve);
  return {
    client: portClient(port2),
    close: () => port1.close(),
  };
}

async function bodyOf(response: ClientExchange): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

/** The next exchange `serve` receives, with a link to send it on. */
function nextServed(): { serve: ExchangeHandler; served: Promise<[ServedRequest, ServedReply]> } {
  let resolve: (pair: [ServedRequest, ServedReply]) => void = () => {};
  const served = new Promise<[ServedRequest, ServedReply]>((r) => (resolve = r));
  return { serve: (request, reply) => resolve([request, reply]), served };
}

/** A GET whose response the server has begun (status and headers sent) and not ended: a watch's shape. */
async function streaming(): Promise<{ reply: ServedReply; response: ClientExchange; close: () => void }> {
  const { serve, served } = nextServed();
  const { client, close } = linked(serve);
  const exchange = client.request({ method: 'GET', url: '/watch', headers: {} }, undefined);
  const [, reply] = await served;
  reply.writeHead(200, {});
  reply.flushHeaders();
  return { reply, response: await exchange.response, close };
}

describe('exchanges over a link', () => {
  it('carries the method, path, headers and body to the server, and its status, headers and body back', async () => {
    const { serve, served } = nextServed();
    const { client, close } = linked(serve);
    const exchange = client.request(
      {
        method: 'PATCH',
        url: '/api/v1/namespaces/default/configmaps/a?fieldManager=x',
        headers: { authorization: 'Bearer t', 'impersonate-group': ['one', 'two'] },
      },
      Buffer.from('{"data":{"a":"1"}}'),
    );
    const [request, reply] = await served;
    assert.equal(request.method, 'PATCH');
    assert.equal(request.url, '/api/v1/namespaces/default/configmaps/a?fieldManager=x');
    assert.equal(request.headers.authorization, 'Bearer t');
    assert.equal(request.headers['impersonate-group'], 'one, two');
    assert.deepEqual(request.headersDistinct['impersonate-group'], ['one', 'two']);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk);
    assert.equal(Buffer.concat(chunks).toString(), '{"data":{"a":"1"}}');

    reply.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': 2, Warning: ['299 - "a"'] });
    const replyClosed = once(reply, 'close');
    reply.end('{}');
    const response = await exchange.response;
    assert.equal(response.statusCode, 201);
    assert.deepEqual(response.headers, {
      'content-type': 'application/json',
      'content-length': '2',
      warning: ['299 - "a"'],
    });
    assert.equal(await bodyOf(response), '{}');
    assert.ok(response.complete);
    await replyClosed;
    close();
  });

  it('carries a string body as its UTF-8', async () => {
    const { serve, served } = nextServed();
    const { client, close } = linked(serve);
    const body = '{"data":{"a":"é ☃ 𝄞"}}';
    client.request({ method: 'POST', url: '/x', headers: {} }, body);
    const [request, reply] = await served;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk);
    assert.deepEqual(Buffer.concat(chunks), Buffer.from(body));
    reply.end();
    close();
  });

  it('streams a response as it is written, before it ends', async () => {
    const { reply, response, close } = await streaming();
    reply.write('one\n');
    const [first] = (await once(response, 'data')) as [Buffer];
    assert.equal(first.toString(), 'one\n');
    assert.equal(response.complete, false);
    reply.write('two\n');
    reply.end();
    assert.equal(await bodyOf(response), 'two\n');
    assert.ok(response.complete);
    close();
  });

  it('carries strings and buffers written in one turn as their UTF-8, in order, counting bytes', async () => {
    const { reply, response, close } = await streaming();
    const parts = ['é ☃ ', Buffer.from('bytes '), '𝄞 end\n'];
    for (const part of parts) reply.write(part);
    const expected = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
    assert.equal(reply.writableLength, expected.length);
    reply.end();
    assert.equal(await bodyOf(response), expected.toString());
    close();
  });

  it('serves exchanges in the order the client made them, across batches', async () => {
    const served: string[] = [];
    const { client, close } = linked((request, reply) => {
      served.push(request.url);
      reply.end();
    });
    // Every fifth request's body fills a batch, which is posted at once, mid-turn.
    const exchanges = Array.from({ length: 40 }, (_, i) =>
      client.request(
        { method: 'POST', url: `/${i}`, headers: {} },
        Buffer.alloc(i % 5 === 0 ? 64 * 1024 : 10, 'x'),
      ),
    );
    await Promise.all(exchanges.map((exchange) => exchange.response));
    assert.deepEqual(
      served,
      exchanges.map((_, i) => `/${i}`),
    );
    close();
  });

  it('tells the server when the client closes first: the reply closes, and what it writes goes nowhere', async () => {
    const { reply, response, close } = await streaming();
    const closed = once(reply, 'close');
    response.destroy();
    await closed;
    assert.ok(reply.destroyed);
    assert.equal(reply.write('late\n'), false);
    close();
  });

  it('fails the request when the server closes the exchange before any status, and the body after one', async () => {
    const served: ServedReply[] = [];
    const { client, close } = linked((_, reply) => served.push(reply));
    const refused = client.request({ method: 'GET', url: '/a', headers: {} }, undefined);
    const cut = client.request({ method: 'GET', url: '/b', headers: {} }, undefined);
    while (served.length < 2) await nextTurn();
    served[0].destroy();
    await assert.rejects(refused.response, { code: 'ECONNRESET', message: 'socket hang up' });

    served[1].writeHead(200, {});
    served[1].write('partial');
    const response = await cut.response;
    const body = bodyOf(response);
    served[1].destroy();
    await assert.rejects(body, { code: 'ECONNRESET', message: 'aborted' });
    assert.equal(response.complete, false);
    close();
  });

  it('refuses exchanges where the other end serves none, and fails every open one when that end goes', async () => {
    const { client, close } = linked();
    await assert.rejects(
      client.request({ method: 'GET', url: '/', headers: {} }, undefined).response,
      /socket hang up/,
    );
    close();

    const { port1, port2 } = new MessageChannel();
    const replies: ServedReply[] = [];
    acceptPorts(
      port1,
      () => undefined,
      undefined,
      (_, reply) => replies.push(reply),
    );
    const other = portClient(port2);
    const pending = other.request({ method: 'GET', url: '/', headers: {} }, undefined);
    while (replies.length < 1) await nextTurn();
    const replyClosed = once(replies[0], 'close');
    port2.close();
    await assert.rejects(pending.response, /socket hang up/);
    await replyClosed;
  });

  it('counts what the client has not read yet in the reply, until it reads', async () => {
    const { reply, response, close } = await streaming();
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let accepted = true;
    for (let i = 0; i < (2 * WINDOW) / chunk.length; i++) accepted = reply.write(chunk);
    // Nothing read yet: everything written is pending, and the reply says the window is full.
    assert.equal(accepted, false);
    for (let i = 0; i < 5; i++) await nextTurn();
    assert.ok(reply.writableLength > WINDOW);
    const drained = once(reply, 'drain');
    let read = 0;
    response.on('data', (data: Buffer) => (read += data.length));
    await drained;
    assert.ok(reply.writableLength < WINDOW);
    reply.end();
    await once(response, 'end');
    assert.equal(read, 2 * WINDOW);
    close();
  });
});
