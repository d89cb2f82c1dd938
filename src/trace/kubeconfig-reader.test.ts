import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderKubeconfig, writeKubeconfig } from '../apiserver/auth/kubeconfig.ts';
import { ApiServer, ROOT_PLANE } from '../apiserver/server.ts';
import { resourceClient } from '../client/resource-client.ts';
import { loadKubeConfig } from '../client/kubeconfig.ts';
import { HUB_CONTEXT, PLATFORM_CONTEXT } from './contexts.ts';
import { KubeconfigPlaneReader, noContext } from './kubeconfig-reader.ts';
import { Kinds, PlaneUnavailableError } from './reader.ts';

describe('KubeconfigPlaneReader', () => {
  let server: ApiServer;
  let dir: string;
  let path: string;

  before(async () => {
    server = await ApiServer.start();
    server.addPlane('hub');
    server.addProjectPlane('alpha');
    dir = await mkdtemp(join(tmpdir(), 'netpresence-reader-'));
    path = join(dir, 'kubeconfig');
    const token = server.adminToken;
    const contexts = [
      { name: PLATFORM_CONTEXT, server: server.url(ROOT_PLANE), token },
      { name: HUB_CONTEXT, server: server.url('hub'), token },
      { name: 'project-alpha', server: server.url('project-alpha'), token },
    ];
    await writeKubeconfig(path, renderKubeconfig(server.certificates.caCertPem, contexts, HUB_CONTEXT));
    await resourceClient(loadKubeConfig(path, 'project-alpha'), Kinds.namespace).create({
      metadata: { name: 'web' },
    });
  });

  after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a plane through the context of its name, and a missing object as undefined', async () => {
    const reader = new KubeconfigPlaneReader(path);
    assert.equal((await reader.get('project-alpha', Kinds.namespace, 'web'))?.metadata.name, 'web');
    assert.equal(await reader.get('project-alpha', Kinds.namespace, 'api'), undefined);
    assert.equal(await reader.get(HUB_CONTEXT, Kinds.namespace, 'web'), undefined);
  });

  it('reaches a project without a context of its own under the platform, at the Milo path', async () => {
    const withoutProject = join(dir, 'platform-only');
    const token = server.adminToken;
    await writeKubeconfig(
      withoutProject,
      renderKubeconfig(
        server.certificates.caCertPem,
        [{ name: PLATFORM_CONTEXT, server: server.url(ROOT_PLANE), token }],
        PLATFORM_CONTEXT,
      ),
    );
    const reader = new KubeconfigPlaneReader(withoutProject);
    assert.equal((await reader.get('project-alpha', Kinds.namespace, 'web'))?.metadata.name, 'web');
  });

  it('a kind the plane does not serve lists empty', async () => {
    const reader = new KubeconfigPlaneReader(path);
    assert.deepEqual(await reader.list(HUB_CONTEXT, Kinds.networkBinding), []);
  });

  it('a plane with no context is unavailable, naming the contexts the file has', async () => {
    const reader = new KubeconfigPlaneReader(path);
    await assert.rejects(reader.get('cell-a', Kinds.namespace, 'web'), (err: unknown) => {
      assert.ok(err instanceof PlaneUnavailableError);
      assert.equal(err.plane, 'cell-a');
      assert.ok(
        err.message.endsWith(noContext(path, 'cell-a', [PLATFORM_CONTEXT, HUB_CONTEXT, 'project-alpha'])),
      );
      return true;
    });
  });

  it('a plane that refuses the connection is unavailable', async () => {
    const refusing = join(dir, 'refusing');
    const contexts = [{ name: 'cell-gone', server: 'https://127.0.0.1:1', token: server.adminToken }];
    await writeKubeconfig(refusing, renderKubeconfig(server.certificates.caCertPem, contexts, 'cell-gone'));
    const reader = new KubeconfigPlaneReader(refusing);
    await assert.rejects(reader.list('cell-gone', Kinds.namespace), PlaneUnavailableError);
  });
});
