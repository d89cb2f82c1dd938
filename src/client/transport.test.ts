import { KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../test/support/apiserver.ts';
import { ForbiddenError, UnauthorizedError } from './errors.ts';
import { loadKubeConfig } from './kubeconfig.ts';
import { resourceClient } from './resource-client.ts';
import { NO_CLUSTER, send } from './transport.ts';
import type { ResourceId } from './types.ts';

const defaultConfigMaps = '/api/v1/namespaces/default/configmaps';
const configMaps: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};

describe('transport', () => {
  let t: TestServer;

  async function kubeConfigFor(file: string, token: string): Promise<KubeConfig> {
    const path = join(t.dir, file);
    await writeFile(path, t.server.kubeconfig(token), { mode: 0o600 });
    return loadKubeConfig(path, 'hub');
  }

  before(async () => {
    t = await startTestServer(['hub']);
  });
  after(async () => t.stop());

  it('appends request paths to the path of the server URL, with or without a trailing slash', async () => {
    const hub = t.kubeConfig('hub');
    const slashed = new KubeConfig();
    slashed.loadFromOptions({
      clusters: hub.getClusters().map((c) => ({ ...c, server: `${c.server}/` })),
      users: hub.getUsers(),
      contexts: hub.getContexts(),
      currentContext: 'hub',
    });
    await send(slashed, { method: 'POST', path: defaultConfigMaps, body: { metadata: { name: 'slashed' } } });
    const slashedIn = (plane: string) =>
      resourceClient(t.kubeConfig(plane), configMaps).get('slashed', 'default');
    assert.ok(await slashedIn('hub'));
    assert.equal(await slashedIn('root'), undefined);
  });

  it('refuses a write by an identity RBAC grants nothing with ForbiddenError', async () => {
    const nobody = await kubeConfigFor('nobody.kubeconfig', t.server.createIdentity('nobody'));
    await assert.rejects(
      send(nobody, { method: 'POST', path: defaultConfigMaps, body: { metadata: { name: 'x' } } }),
      (err: unknown) =>
        err instanceof ForbiddenError && err.code === 403 && /User "nobody" cannot create/.test(err.message),
    );
  });

  it('refuses a request with a token the server never issued with UnauthorizedError', async () => {
    const bogus = await kubeConfigFor('bogus.kubeconfig', 'not-a-token');
    await assert.rejects(send(bogus, { method: 'GET', path: defaultConfigMaps }), UnauthorizedError);
  });

  it('follows the kubeconfig to another context between one request and the next', async () => {
    const kubeConfig = await kubeConfigFor('switching.kubeconfig', t.server.adminToken);
    const create = () =>
      send(kubeConfig, { method: 'POST', path: defaultConfigMaps, body: { metadata: { name: 'switched' } } });
    await create();
    kubeConfig.setCurrentContext('root');
    await create(); // the root plane's, not a second one in the hub (that would be 409)
    const nobody = t.server.createIdentity('nobody-switched');
    kubeConfig.loadFromOptions({
      clusters: kubeConfig.getClusters(),
      users: [...kubeConfig.getUsers(), { name: 'nobody', token: nobody }],
      contexts: [...kubeConfig.getContexts(), { name: 'hub-nobody', cluster: 'hub', user: 'nobody' }],
      currentContext: 'hub-nobody',
    });
    await assert.rejects(create(), ForbiddenError);
  });

  it('asks an exec credential plugin again for every request: its token may change', async () => {
    const tokenFile = join(t.dir, 'exec.token');
    await writeFile(tokenFile, t.server.adminToken);
    const hub = t.kubeConfig('hub');
    const credential =
      '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}';
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: hub.getClusters(),
      users: [
        {
          name: 'exec',
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: 'sh',
            args: ['-c', `printf '${credential}' "$(cat '${tokenFile}')"`],
          },
        },
      ],
      contexts: [{ name: 'hub', cluster: hub.getCurrentCluster()!.name, user: 'exec' }],
      currentContext: 'hub',
    });
    await send(kubeConfig, { method: 'GET', path: defaultConfigMaps });
    await writeFile(tokenFile, 'revoked-token');
    await assert.rejects(send(kubeConfig, { method: 'GET', path: defaultConfigMaps }), UnauthorizedError);
  });

  it('says what to fix when the kubeconfig names no cluster', async () => {
    await assert.rejects(send(new KubeConfig(), { method: 'GET', path: defaultConfigMaps }), {
      message: NO_CLUSTER,
    });
  });
});
