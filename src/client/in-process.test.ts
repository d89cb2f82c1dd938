import assert from 'node:assert/strict';
import * as http from 'node:http';
import { describe, it } from 'node:test';
import type { Duplex } from 'node:stream';
import { MessageChannel } from 'node:worker_threads';
import { inProcessAgent, inProcessMessages, inProcessOrigin, registerInProcess } from './in-process.ts';
import { socketPair } from './in-process-socket.ts';
import { acceptPorts, portClient } from './message-port-socket.ts';
import { open } from './transport.ts';
import { KubeConfig } from '@kubernetes/client-node';

/** A server whose `/watch` streams a line every few ms until closed; anything else echoes its body's size. */
function testServer() {
  const watches = new Set<http.ServerResponse>();
  const sockets = new Set<Duplex>();
  const server = http.createServer((req, res) => {
    if (req.url === '/watch') {
      res.writeHead(200);
      watches.add(res);
      const timer = setInterval(() => res.write('event\n'), 2);
      res.on('close', () => {
        clearInterval(timer);
        watches.delete(res);
      });
      return;
    }
    let size = 0;
    req.on('data', (chunk: Buffer) => (size += chunk.length));
    req.on('end', () => res.end(`${req.method} ${req.url} ${size} ${req.headers.authorization ?? ''}`));
  });
  const accept = (socket: Duplex) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    server.emit('connection', socket);
  };
  return { watches, sockets, accept };
}

/** Connections to a test server made both ways the fleet makes them. */
const CONNECTORS = {
  'socket pairs': (accept: (socket: Duplex) => void) => () => {
    const [client, served] = socketPair();
    accept(served);
    return client;
  },
  'message ports': (accept: (socket: Duplex) => void) => {
    const { port1, port2 } = new MessageChannel();
    acceptPorts(port1, accept);
    port1.unref();
    return portClient(port2).connect;
  },
};

let origins = 0;

function post(origin: string, path: string, body: string | Buffer): Promise<string> {
  const url = new URL(`${origin}${path}`);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: inProcessAgent(url, false) }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const settled = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
};

describe('in-process origins', () => {
  it('gives an agent for a registered origin only, and refuses an in-process origin not registered here', () => {
    const origin = inProcessOrigin(`registry-${++origins}`);
    assert.match(origin, /^http:\/\/registry-\d+\.in-process\.invalid$/);
    assert.throws(
      () => inProcessAgent(new URL(`${origin}/api`), false),
      new Error(inProcessMessages.notRegistered(origin)),
    );
    const unregister = registerInProcess(
      origin,
      CONNECTORS['socket pairs'](() => undefined),
    );
    const requests = inProcessAgent(new URL(`${origin}/planes/hub/api`), false);
    const watches = inProcessAgent(new URL(`${origin}/planes/hub/api`), true);
    assert.ok(requests && watches);
    assert.notEqual(requests, watches, 'watches have an agent of their own');
    assert.equal(inProcessAgent(new URL('https://127.0.0.1:6443/api'), false), undefined);
    unregister();
    assert.throws(() => inProcessAgent(new URL(`${origin}/api`), false), /no connection to it is registered/);
  });

  it('is what the transport uses for a kubeconfig naming one, the token sent as over TLS', async () => {
    const { accept } = testServer();
    const origin = inProcessOrigin(`transport-${++origins}`);
    const unregister = registerInProcess(origin, CONNECTORS['message ports'](accept));
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: `${origin}/planes/hub`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'the-token' }],
      contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
      currentContext: 'c',
    });
    const response = await open(kubeConfig, { method: 'POST', path: '/api/v1/x', body: { a: 1 } });
    let text = '';
    for await (const chunk of response) text += String(chunk);
    assert.equal(text, 'POST /planes/hub/api/v1/x 7 Bearer the-token');
    unregister();
  });
});

for (const [name, connector] of Object.entries(CONNECTORS)) {
  describe(`HTTP over ${name}`, () => {
    it('serves many concurrent requests, large bodies included, on kept-alive connections', async () => {
      const { accept, sockets } = testServer();
      let made = 0;
      const connect = connector(accept);
      const origin = inProcessOrigin(`many-${++origins}`);
      const unregister = registerInProcess(origin, () => (made++, connect()));
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          post(origin, `/r${i}`, i % 50 === 0 ? Buffer.alloc(4 << 20) : 'x'),
        ),
      );
      assert.deepEqual(
        answers,
        Array.from({ length: 200 }, (_, i) => `POST /r${i} ${i % 50 === 0 ? 4 << 20 : 1} `),
      );
      assert.equal(made, 200);
      // Kept alive: the next requests reuse them.
      await Promise.all(Array.from({ length: 50 }, (_, i) => post(origin, `/again${i}`, '')));
      assert.equal(made, 200);
      // Unregistering destroys the agents, and their idle connections with them, on both sides.
      unregister();
      await settled(() => sockets.size === 0);
    });

    for (const closer of ['client', 'server'] as const) {
      it(`frees both ends of a watch closed by the ${closer}`, async () => {
        const { accept, watches, sockets } = testServer();
        const origin = inProcessOrigin(`watch-${++origins}`);
        const unregister = registerInProcess(origin, connector(accept));
        const url = new URL(`${origin}/watch`);
        const agent = inProcessAgent(url, true)!;
        const response = await new Promise<http.IncomingMessage>((resolve) =>
          http.get(url, { agent }, resolve),
        );
        await new Promise((resolve) => response.once('data', resolve));
        assert.equal(watches.size, 1);
        assert.equal(sockets.size, 1);
        const client = response.socket;
        // A watch the server ends early is an aborted response to the client.
        const closed = new Promise((resolve) => response.on('close', resolve).on('error', () => undefined));
        if (closer === 'client') response.destroy();
        else [...sockets][0].destroy();
        await closed;
        await settled(() => watches.size === 0 && sockets.size === 0 && client.destroyed);
        assert.equal(Object.values(agent.sockets).flat().length, 0);
        unregister();
      });
    }
  });
}
