import { KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { eventually, startTestServer, type TestServer } from '../../test/support/apiserver.ts';
import { retainedByLongerValue } from '../../test/support/retained.ts';
import { GoneError, NotFoundError } from './errors.ts';
import { resourceClient } from './resource-client.ts';
import type { ResourceClient, ResourceId, WatchEventType, WatchHandle, WatchOptions } from './types.ts';

const configMaps: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};

interface Recording {
  events: { type: WatchEventType; object: any }[];
  /** Resolves with the error `done` got; `doneCalls` counts its calls. */
  ended: Promise<Error | undefined>;
  doneCalls: () => number;
  handle: WatchHandle;
}

async function record(client: ResourceClient, options: WatchOptions): Promise<Recording> {
  const events: Recording['events'] = [];
  let calls = 0;
  let end!: (err?: Error) => void;
  const ended = new Promise<Error | undefined>((resolve) => (end = resolve));
  const handle = await client.watch(
    options,
    (type, object) => events.push({ type, object }),
    (err) => {
      calls++;
      end(err);
    },
  );
  return { events, ended, doneCalls: () => calls, handle };
}

/** A kubeconfig for a plain-HTTP server on `port`, at the `/planes/hub` prefix. */
function plainKubeConfig(port: number): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser(
    { name: 'plain', server: `http://127.0.0.1:${port}/planes/hub`, skipTLSVerify: true },
    { name: 'anyone' },
  );
  return kubeConfig;
}

async function listening(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** Runs `body` against a plain-HTTP server answering every request with `handler`. */
async function withPlainServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  body: (kubeConfig: KubeConfig) => Promise<void>,
): Promise<void> {
  const server = await listening(handler);
  try {
    await body(plainKubeConfig((server.address() as AddressInfo).port));
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const added = (name: string) => `${JSON.stringify({ type: 'ADDED', object: { metadata: { name } } })}\n`;

describe('watch', () => {
  let t: TestServer;
  let cms: ResourceClient;

  before(async () => {
    t = await startTestServer(['hub'], { plane: { historyLimit: 5 }, watch: { bookmarkIntervalMs: 20 } });
    cms = resourceClient(t.kubeConfig('hub'), configMaps);
    await resourceClient(t.kubeConfig('hub'), {
      group: '',
      version: 'v1',
      kind: 'Namespace',
      plural: 'namespaces',
      namespaced: false,
    }).create({ metadata: { name: 'alpha' } });
  });
  after(async () => t.stop());

  it('sees ADDED, MODIFIED and DELETED in order from a resourceVersion, and nothing before it', async () => {
    await cms.create({ metadata: { name: 'earlier', namespace: 'alpha' } });
    const { resourceVersion } = await cms.list({ namespace: 'alpha' });
    const watch = await record(cms, { namespace: 'alpha', resourceVersion });
    await cms.create({ metadata: { name: 'seen', namespace: 'alpha' }, data: { v: '1' } });
    await cms.patchMerge('seen', 'alpha', { data: { v: '2' } });
    await cms.delete('seen', 'alpha');
    await eventually(() => (watch.events.length >= 3 ? true : undefined), 5000, 'three events');
    watch.handle.abort();
    assert.deepEqual(
      watch.events.map((e) => `${e.type} ${e.object.metadata.name}`),
      ['ADDED seen', 'MODIFIED seen', 'DELETED seen'],
    );
    assert.deepEqual(watch.events[1].object.data, { v: '2' });
    const versions = watch.events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.deepEqual(
      versions,
      [...versions].sort((a, b) => a - b),
    );
  });

  it('ends a watch from a too-old resourceVersion with a 410', async () => {
    const { resourceVersion } = await cms.list();
    for (let i = 0; i < 12; i++) await cms.create({ metadata: { name: `churn-${i}`, namespace: 'alpha' } });
    const watch = await record(cms, { resourceVersion });
    const err = await watch.ended;
    const expiredEvent = watch.events.find((e) => e.type === 'ERROR' && e.object.code === 410);
    assert.ok(
      err instanceof GoneError || expiredEvent,
      `ended with ${String(err)} after ${watch.events.length} events`,
    );
    assert.ok(!watch.events.some((e) => e.type === 'ADDED'), 'no event from the resume point is delivered');
  });

  it('keeps one copy of a value its events repeat, for the caches that hold them', async () => {
    // 100 ConfigMaps × 40 keys: 4,000 values of 900 characters are 3.6 MB when each is a copy.
    const watched = async (value: string) => {
      const labelSelector = `value=${value.length}`;
      const { resourceVersion } = await cms.list({ namespace: 'alpha', labelSelector });
      const recording = await record(cms, { namespace: 'alpha', labelSelector, resourceVersion });
      for (let i = 0; i < 100; i++) {
        const data = Object.fromEntries(Array.from({ length: 40 }, (_, k) => [`k${k}`, value]));
        await cms.create({
          metadata: {
            name: `repeat-${value.length}-${i}`,
            namespace: 'alpha',
            labels: { value: String(value.length) },
          },
          data,
        });
      }
      await eventually(() => (recording.events.length === 100 ? true : undefined));
      recording.handle.abort();
      return recording.events;
    };
    const extra = await retainedByLongerValue(watched);
    assert.ok(extra < 1_000_000, `900-character values retained ${extra} bytes more than 1-character ones`);
  });

  it('ends with done() and no error when aborted', async () => {
    const { resourceVersion } = await cms.list();
    const watch = await record(cms, { resourceVersion });
    watch.handle.abort();
    assert.equal(await watch.ended, undefined);
    watch.handle.abort();
    await cms.create({ metadata: { name: 'after-abort', namespace: 'alpha' } });
    assert.equal(watch.doneCalls(), 1);
    assert.equal(watch.events.length, 0);
  });

  it('ends with done() and no error when the server ends the stream, after its last event', async () => {
    await withPlainServer(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(added('last'));
      },
      async (kubeConfig) => {
        const watch = await record(resourceClient(kubeConfig, configMaps), { resourceVersion: '1' });
        assert.equal(await watch.ended, undefined);
        assert.deepEqual(
          watch.events.map((e) => e.object.metadata.name),
          ['last'],
        );
        assert.equal(watch.doneCalls(), 1);
      },
    );
  });

  it('delivers BOOKMARK events when asked', async () => {
    const { resourceVersion } = await cms.list();
    const watch = await record(cms, { resourceVersion, allowWatchBookmarks: true });
    const bookmark = await eventually(
      () => watch.events.find((e) => e.type === 'BOOKMARK'),
      5000,
      'a bookmark',
    );
    watch.handle.abort();
    assert.equal(bookmark.object.metadata.resourceVersion, resourceVersion);
  });

  it('ends with the typed error when the server refuses the watch', async () => {
    const missing = resourceClient(t.kubeConfig('hub'), {
      group: 'example.com',
      version: 'v1',
      kind: 'Gadget',
      plural: 'gadgets',
      namespaced: true,
    });
    const watch = await record(missing, { resourceVersion: '0' });
    assert.ok((await watch.ended) instanceof NotFoundError);
  });

  it('ends with GoneError when the server answers the watch with HTTP 410', async () => {
    const requested: string[] = [];
    await withPlainServer(
      (req, res) => {
        requested.push(req.url!);
        res.writeHead(410, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'Status',
            status: 'Failure',
            reason: 'Expired',
            code: 410,
            message: 'too old',
          }),
        );
      },
      async (kubeConfig) => {
        const client = resourceClient(kubeConfig, configMaps);
        const watch = await record(client, { namespace: 'alpha', resourceVersion: '7' });
        const err = await watch.ended;
        assert.ok(err instanceof GoneError);
        assert.equal(err.message, 'too old');
      },
    );
    assert.deepEqual(requested, [
      '/planes/hub/api/v1/namespaces/alpha/configmaps?resourceVersion=7&watch=true',
    ]);
  });

  it('ends with an error naming a line that is not JSON, after the events before it', async () => {
    await withPlainServer(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(added('fine'));
        res.write('<html>proxy error</html>\n');
      },
      async (kubeConfig) => {
        const watch = await record(resourceClient(kubeConfig, configMaps), { resourceVersion: '1' });
        const err = await watch.ended;
        assert.equal(err?.message, 'the watch stream sent a line that is not JSON: <html>proxy error</html>');
        assert.deepEqual(
          watch.events.map((e) => e.type),
          ['ADDED'],
        );
      },
    );
  });

  it('ends with what onEvent threw, and delivers nothing after it', async () => {
    await withPlainServer(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(added('a') + added('b'));
      },
      async (kubeConfig) => {
        const seen: string[] = [];
        const ended = new Promise<Error | undefined>((resolve) => {
          void resourceClient(kubeConfig, configMaps).watch(
            { resourceVersion: '1' },
            (type, object) => {
              if (type !== 'ERROR') seen.push(object.metadata.name!);
              throw new Error('store rejected the event');
            },
            resolve,
          );
        });
        assert.equal((await ended)?.message, 'store rejected the event');
        assert.deepEqual(seen, ['a']);
      },
    );
  });

  it('ends with an error when the connection breaks', async () => {
    await withPlainServer(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(added('before-the-break'), () => res.socket?.destroy());
      },
      async (kubeConfig) => {
        const watch = await record(resourceClient(kubeConfig, configMaps), { resourceVersion: '1' });
        const err = await watch.ended;
        assert.ok(err instanceof Error, 'a broken stream is not a clean end');
        assert.equal(watch.events.length, 1);
        assert.equal(watch.doneCalls(), 1);
      },
    );
  });

  it('ends with the network error when the server cannot be reached', async () => {
    const server = await listening(() => undefined);
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const watch = await record(resourceClient(plainKubeConfig(port), configMaps), { resourceVersion: '0' });
    assert.match(String(await watch.ended), /ECONNREFUSED/);
  });
});
