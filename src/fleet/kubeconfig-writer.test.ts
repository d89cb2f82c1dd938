import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { ApiServer } from '../apiserver/server.ts';
import { KubeconfigWriter } from './kubeconfig-writer.ts';

interface Written {
  'current-context': string;
  contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
  clusters: { name: string; cluster: { server: string } }[];
  users: { name: string; user: { token: string } }[];
}

describe('kubeconfig writer', () => {
  let server: ApiServer;
  let dir: string;
  before(async () => {
    server = await ApiServer.start();
    server.addPlane('hub');
    server.addPlane('cell-a');
    dir = await mkdtemp(join(tmpdir(), 'netpresence-kubeconfig-'));
  });
  after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function read(path: string): Promise<Written> {
    return parseYaml(await readFile(path, 'utf8')) as Written;
  }

  it('names every plane as the admin, and the narrow identities in -as-consumer and -as-cell contexts', async () => {
    const path = join(dir, 'nested', 'kubeconfig');
    const writer = new KubeconfigWriter(path, server, new Map([['cell-a', 'cell-token']]));
    server.addProjectPlane('demo');
    writer.setProject('demo', { consumerToken: 'consumer-token', hubNamespace: 'ns-u' });
    await writer.write();
    const config = await read(path);
    assert.equal(config['current-context'], 'hub');
    assert.deepEqual(
      config.contexts.map((c) => c.name),
      ['platform', 'hub', 'project-demo', 'cell-a', 'project-demo-as-consumer', 'cell-a-as-cell'],
    );
    const token = (name: string) => config.users.find((u) => u.name === name)!.user.token;
    const server_ = (name: string) => config.clusters.find((c) => c.name === name)!.cluster.server;
    assert.equal(token('platform'), server.adminToken);
    assert.equal(token('project-demo-as-consumer'), 'consumer-token');
    assert.equal(token('cell-a-as-cell'), 'cell-token');
    assert.equal(server_('project-demo-as-consumer'), server.url('hub'));
    assert.match(
      server_('project-demo'),
      /\/apis\/resourcemanager\.miloapis\.com\/v1alpha1\/projects\/demo\/control-plane$/,
    );
    assert.equal(
      config.contexts.find((c) => c.name === 'project-demo-as-consumer')!.context.namespace,
      'ns-u',
    );
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });

  it('drops a project when its plane goes, and the last of overlapping writes wins', async () => {
    const path = join(dir, 'kubeconfig');
    const writer = new KubeconfigWriter(path, server, new Map());
    server.addProjectPlane('gone');
    writer.setProject('gone', { consumerToken: 't', hubNamespace: 'ns-g' });
    const first = writer.write();
    writer.removeProject('gone');
    server.removePlane('project-gone');
    await Promise.all([first, writer.write()]);
    const names = (await read(path)).contexts.map((c) => c.name);
    assert.ok(!names.includes('project-gone'));
    assert.ok(!names.includes('project-gone-as-consumer'));
  });

  it('rewrites nothing when nothing it names changed, and writes again after a change', async () => {
    const path = join(dir, 'unchanged');
    const writer = new KubeconfigWriter(path, server, new Map());
    server.addProjectPlane('steady');
    writer.setProject('steady', { consumerToken: 't', hubNamespace: 'ns-s' });
    await writer.write();
    const first = (await stat(path)).ino;
    writer.setProject('steady', { consumerToken: 't', hubNamespace: 'ns-s' });
    await writer.write();
    assert.equal((await stat(path)).ino, first, 'an atomic rewrite would have replaced the file');
    writer.setProject('steady', { consumerToken: 't', hubNamespace: 'ns-other' });
    await writer.write();
    assert.notEqual((await stat(path)).ino, first);
    assert.equal(
      (await read(path)).contexts.find((c) => c.name === 'project-steady-as-consumer')!.context.namespace,
      'ns-other',
    );
    server.removePlane('project-steady');
  });
});
