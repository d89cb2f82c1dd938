import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  duplicateContext,
  insecureServer,
  type KubeconfigContext,
  missingCurrentContext,
  renderKubeconfig,
  writeKubeconfig,
} from './kubeconfig.ts';

// Not a real certificate: rendering only carries the PEM text, it never parses it.
const CA_PEM = `-----BEGIN CERTIFICATE-----\n${'QUJD'.repeat(64)}\n-----END CERTIFICATE-----\n`;

const hub: KubeconfigContext = {
  name: 'hub',
  server: 'https://127.0.0.1:6443/planes/hub',
  token: 'hub-token',
};
const platform: KubeconfigContext = {
  name: 'platform',
  server: 'https://127.0.0.1:6443',
  token: 'platform-token',
  namespace: 'kube-system',
};

describe('kubeconfig', () => {
  it('renders parseable YAML with one cluster, user and context per context, named as it', () => {
    const config = parse(renderKubeconfig(CA_PEM, [hub, platform], 'hub'));
    const caData = Buffer.from(CA_PEM).toString('base64');
    assert.deepEqual(config, {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'hub', cluster: { 'certificate-authority-data': caData, server: hub.server } },
        { name: 'platform', cluster: { 'certificate-authority-data': caData, server: platform.server } },
      ],
      users: [
        { name: 'hub', user: { token: 'hub-token' } },
        { name: 'platform', user: { token: 'platform-token' } },
      ],
      contexts: [
        { name: 'hub', context: { cluster: 'hub', user: 'hub' } },
        { name: 'platform', context: { cluster: 'platform', user: 'platform', namespace: 'kube-system' } },
      ],
      'current-context': 'hub',
    });
    assert.equal(
      Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString(),
      CA_PEM,
    );
  });

  it('keeps every name, server and token the string it is, however YAML would read it plainly', () => {
    const awkward = ['yes', 'null', '1234', '0x1f', 'a: b', 'x #y', 't"x', "it's", '-dash', '~', 'ünï'];
    const contexts = awkward.map((name, i) => ({
      name,
      server: `https://127.0.0.1:${6443 + i}/planes/${name}`,
      token: name,
      namespace: name,
    }));
    const config = parse(renderKubeconfig(CA_PEM, contexts, 'yes'));
    assert.deepEqual(
      config.clusters.map((c: { name: string; cluster: { server: string } }) => [c.name, c.cluster.server]),
      contexts.map((c) => [c.name, c.server]),
    );
    assert.deepEqual(
      config.users.map((u: { user: { token: string } }) => u.user.token),
      awkward,
    );
    assert.deepEqual(
      config.contexts.map((c: { context: { namespace: string } }) => c.context.namespace),
      awkward,
    );
    assert.equal(config['current-context'], 'yes');
  });

  it('keeps the CA data on one line', () => {
    const caLines = renderKubeconfig(CA_PEM, [hub], 'hub')
      .split('\n')
      .filter((line) => line.includes('certificate-authority-data'));
    assert.equal(caLines.length, 1);
    assert.ok(caLines[0].endsWith(Buffer.from(CA_PEM).toString('base64')));
  });

  it('refuses a current-context that names none of the contexts', () => {
    assert.throws(() => renderKubeconfig(CA_PEM, [hub], 'cell-a'), {
      message: missingCurrentContext('cell-a'),
    });
  });

  it('refuses two contexts of one name', () => {
    assert.throws(() => renderKubeconfig(CA_PEM, [hub, { ...platform, name: 'hub' }], 'hub'), {
      message: duplicateContext('hub'),
    });
  });

  it('refuses an http server, to which kubectl would send no token', () => {
    const plain = { ...hub, server: 'http://127.0.0.1:6443/planes/hub' };
    assert.throws(() => renderKubeconfig(CA_PEM, [plain], 'hub'), {
      message: insecureServer('hub', plain.server),
    });
  });

  describe('written', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'np-kubeconfig-'));
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('lands in a new directory with mode 0600 and replaces an earlier file whole', async () => {
      const path = join(dir, '.kube', 'config');
      await writeKubeconfig(path, renderKubeconfig(CA_PEM, [hub, platform], 'platform'));
      const content = renderKubeconfig(CA_PEM, [hub], 'hub');
      await writeKubeconfig(path, content);
      assert.equal(await readFile(path, 'utf8'), content);
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.deepEqual(await readdir(join(dir, '.kube')), ['config']);
    });
  });
});
