/**
 * The plain-HTTP loopback listener (src/apiserver/loopback-listener.ts) through our own client, as
 * the fleet's in-process controllers use it: the same planes, tokens and RBAC as over HTTPS, on
 * 127.0.0.1 only, and gone when the server stops.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiServer } from '../../src/apiserver/server.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import type { KubeObject } from '../../src/client/types.ts';

const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };

function kubeConfigFor(server: ApiServer, url: string, token: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      url.startsWith('http:')
        ? { name: 'hub', server: url, skipTLSVerify: true }
        : { name: 'hub', server: url, caData: Buffer.from(server.certificates.caCertPem).toString('base64') },
    ],
    users: [{ name: 'hub', token }],
    contexts: [{ name: 'hub', cluster: 'hub', user: 'hub' }],
    currentContext: 'hub',
  });
  return kubeConfig;
}

function plainGet(url: string, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    const req = request(url, { headers, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the loopback listener', () => {
  let server: ApiServer;
  before(async () => {
    server = await ApiServer.start({ loopback: true });
    server.addPlane('hub');
  });
  after(async () => server.stop());

  it('serves every plane over plain HTTP on 127.0.0.1, and is named in no kubeconfig', () => {
    assert.match(server.loopbackUrl('hub')!, /^http:\/\/127\.0\.0\.1:\d+\/planes\/hub$/);
    assert.doesNotMatch(server.kubeconfig(), /http:\/\//);
  });

  it('refuses a request without a token 401, and one whose identity RBAC does not allow 403', async () => {
    const url = `${server.loopbackUrl('hub')}/api/v1/namespaces/default/configmaps`;
    assert.equal(await plainGet(url), 401);
    assert.equal(await plainGet(url, 'not-a-token'), 401);
    assert.equal(await plainGet(url, server.createIdentity('nobody')), 403);
    assert.equal(await plainGet(url, server.adminToken), 200);
  });

  it('writes and watches through it what HTTPS clients see, in the same plane', async () => {
    const loopback = resourceClient<KubeObject>(
      kubeConfigFor(server, server.loopbackUrl('hub')!, server.adminToken),
      CONFIG_MAPS,
    );
    const tls = resourceClient<KubeObject>(
      kubeConfigFor(server, server.url('hub'), server.adminToken),
      CONFIG_MAPS,
    );
    const { resourceVersion } = await tls.list({ namespace: 'default', limit: 1 });
    const seen: string[] = [];
    let arrivedBoth: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (arrivedBoth = resolve));
    const handle = await loopback.watch(
      { namespace: 'default', resourceVersion },
      (type, object) => {
        if (type === 'ERROR' || type === 'BOOKMARK') return;
        seen.push(`${type} ${object.metadata.name}`);
        if (seen.length === 2) arrivedBoth();
      },
      () => {},
    );
    await loopback.create({ metadata: { name: 'over-loopback', namespace: 'default' }, data: { a: '1' } });
    await tls.create({ metadata: { name: 'over-tls', namespace: 'default' } });
    await arrived;
    handle.abort();
    assert.deepEqual(seen, ['ADDED over-loopback', 'ADDED over-tls']);
    assert.deepEqual((await tls.get('over-loopback', 'default'))?.data, { a: '1' });
  });

  it('is closed with the server', async () => {
    const other = await ApiServer.start({ loopback: true });
    const url = `${other.loopbackUrl('root')!}/version`;
    assert.equal(await plainGet(url, other.adminToken), 200);
    await other.stop();
    await assert.rejects(plainGet(url, other.adminToken), /ECONNREFUSED/);
  });
});

describe('without the loopback option', () => {
  it('serves HTTPS only', async () => {
    const server = await ApiServer.start();
    try {
      assert.equal(server.loopbackUrl('root'), undefined);
    } finally {
      await server.stop();
    }
  });
});
