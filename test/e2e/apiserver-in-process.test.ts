/**
 * The in-process transport (src/fleet/in-process-transport.ts over src/apiserver/in-process-listener.ts)
 * through our own client, as the fleet's controllers use it — HTTP over socket pairs on the
 * server's thread, exchanges over a link from a worker's — the same planes, tokens and RBAC as
 * over HTTPS, no file descriptor per connection, and every connection gone when the server stops.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiServer } from '../../src/apiserver/server.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import { StatusError } from '../../src/client/errors.ts';
import type { KubeObject } from '../../src/client/types.ts';
import { registerInProcess } from '../../src/client/in-process.ts';
import { portClient } from '../../src/client/message-port-socket.ts';
import { inProcessUrl, serveInProcess, workerConnections } from '../../src/fleet/in-process-transport.ts';
import { planeKubeConfig } from '../../src/fleet/plane-kubeconfig.ts';

const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };

const openDescriptors = () => readdirSync('/proc/self/fd').length;

function tlsKubeConfig(server: ApiServer, plane: string, token: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      {
        name: plane,
        server: server.url(plane),
        caData: Buffer.from(server.certificates.caCertPem).toString('base64'),
      },
    ],
    users: [{ name: plane, token }],
    contexts: [{ name: plane, cluster: plane, user: plane }],
    currentContext: plane,
  });
  return kubeConfig;
}

const statusOf = (err: unknown) => (err instanceof StatusError ? err.code : err);

/** How this thread reaches a server in process: what `serveInProcess` registers, or a worker's link. */
interface Reached {
  close(): void;
  /** Connections opened to the server so far, where requests should need none (exchanges). */
  connectionsOpened?: () => number;
}

const TRANSPORTS: Record<string, (server: ApiServer) => Reached> = {
  'HTTP over socket pairs': serveInProcess,
  'exchanges over a worker link': (server) => {
    const served = serveInProcess(server);
    // What controller-worker.ts registers in a worker, registered here in its place.
    const { origin, acceptor } = workerConnections(server);
    const client = portClient(acceptor);
    let connections = 0;
    const connect = () => (connections++, client.connect());
    const unregister = registerInProcess(origin, connect, client.request);
    return {
      connectionsOpened: () => connections,
      close() {
        unregister();
        served.close();
        acceptor.close();
      },
    };
  },
};

for (const [transport, reach] of Object.entries(TRANSPORTS))
  describe(`the in-process transport: ${transport}`, () => {
    let server: ApiServer;
    let served: Reached;
    before(async () => {
      server = await ApiServer.start();
      server.addPlane('hub');
      served = reach(server);
    });
    after(async () => {
      await server.stop();
      served.close();
    });

    it('names every plane under an origin no kubeconfig written for users names', () => {
      assert.match(
        inProcessUrl(server, 'hub')!,
        /^http:\/\/apiserver-\d+-\d+\.in-process\.invalid\/planes\/hub$/,
      );
      assert.equal(
        planeKubeConfig(server, 'hub', 't').getCurrentCluster()?.server,
        inProcessUrl(server, 'hub'),
      );
      assert.doesNotMatch(server.kubeconfig(), /in-process/);
    });

    it('refuses a request without a valid token 401, and one whose identity RBAC does not allow 403', async () => {
      const as = (token: string) =>
        resourceClient<KubeObject>(planeKubeConfig(server, 'hub', token), CONFIG_MAPS);
      await assert.rejects(as('not-a-token').list({ namespace: 'default' }), (err) => statusOf(err) === 401);
      await assert.rejects(
        as(server.createIdentity('nobody')).list({ namespace: 'default' }),
        (err) => statusOf(err) === 403,
      );
      assert.deepEqual((await as(server.adminToken).list({ namespace: 'default' })).items, []);
    });

    it('writes and watches through it what HTTPS clients see, holding no descriptor per connection', async () => {
      const inProcess = resourceClient<KubeObject>(
        planeKubeConfig(server, 'hub', server.adminToken),
        CONFIG_MAPS,
      );
      const tls = resourceClient<KubeObject>(tlsKubeConfig(server, 'hub', server.adminToken), CONFIG_MAPS);
      const { resourceVersion } = await tls.list({ namespace: 'default', limit: 1 });
      const descriptors = openDescriptors();
      const seen: string[][] = [];
      let arrivedAll: () => void = () => {};
      const arrived = new Promise<void>((resolve) => (arrivedAll = resolve));
      const handles = await Promise.all(
        Array.from({ length: 50 }, (_, i) => {
          seen.push([]);
          return inProcess.watch(
            { namespace: 'default', resourceVersion },
            (type, object) => {
              if (type === 'ERROR' || type === 'BOOKMARK') return;
              seen[i].push(`${type} ${object.metadata.name}`);
              if (seen.every((events) => events.length === 2)) arrivedAll();
            },
            () => {},
          );
        }),
      );
      await inProcess.create({ metadata: { name: 'in-process', namespace: 'default' }, data: { a: '1' } });
      await tls.create({ metadata: { name: 'over-tls', namespace: 'default' } });
      await arrived;
      // Fifty watches and the requests' connections, and not one descriptor more (over TCP: two each).
      assert.equal(openDescriptors(), descriptors);
      for (const handle of handles) handle.abort();
      for (const events of seen) assert.deepEqual(events, ['ADDED in-process', 'ADDED over-tls']);
      assert.deepEqual((await tls.get('in-process', 'default'))?.data, { a: '1' });
      // A worker's requests and watches travel as exchanges, not as HTTP on connections.
      if (served.connectionsOpened) assert.equal(served.connectionsOpened(), 0);
    });

    it("reads a body larger than the link's window whole, as it reads one that arrives at once", async () => {
      const inProcess = resourceClient<KubeObject>(
        planeKubeConfig(server, 'hub', server.adminToken),
        CONFIG_MAPS,
      );
      const tls = resourceClient<KubeObject>(tlsKubeConfig(server, 'hub', server.adminToken), CONFIG_MAPS);
      // Three objects of 900 KiB: their list is 2.7 MiB, past the 1 MiB a link sends unacknowledged.
      const names = ['big-a', 'big-b', 'big-c'];
      for (const name of names)
        await inProcess.create({
          metadata: { name, namespace: 'default' },
          data: { v: name.repeat(180 << 10) },
        });
      const listed = await inProcess.list({ namespace: 'default' });
      const big = listed.items.filter((item) => names.includes(item.metadata.name!));
      assert.deepEqual(
        big.map((item) => [item.metadata.name, (item.data as { v: string }).v.length]),
        names.map((name) => [name, 900 << 10]),
      );
      assert.deepEqual(
        big,
        (await tls.list({ namespace: 'default' })).items.filter((item) =>
          names.includes(item.metadata.name!),
        ),
      );
      // A small body, which arrives with its head, reads the same.
      await inProcess.create({ metadata: { name: 'small', namespace: 'default' }, data: { a: '1' } });
      assert.deepEqual((await inProcess.get('small', 'default'))?.data, { a: '1' });
      assert.deepEqual(await inProcess.get('small', 'default'), await tls.get('small', 'default'));
      for (const name of [...names, 'small']) await inProcess.delete(name, 'default');
    });

    it('ends a watch when the server stops, and refuses connections after', async () => {
      const other = await ApiServer.start();
      const otherServed = reach(other);
      try {
        const client = resourceClient<KubeObject>(
          planeKubeConfig(other, 'root', other.adminToken),
          CONFIG_MAPS,
        );
        let ended: (err?: Error) => void = () => {};
        const done = new Promise<Error | undefined>((resolve) => (ended = resolve));
        const { resourceVersion } = await client.list({ namespace: 'default', limit: 1 });
        await client.watch({ namespace: 'default', resourceVersion }, () => {}, ended);
        await other.stop();
        assert.ok(await done, 'the watch ends with the connection lost');
        await assert.rejects(client.list({ namespace: 'default' }), /socket hang up|ECONNRESET/);
      } finally {
        otherServed.close();
      }
    });
  });
