import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { contextWithoutCluster, loadKubeConfig, missingContext, noCurrentContext } from './kubeconfig.ts';

const kubeconfig = (currentContext: string | undefined) => `
apiVersion: v1
kind: Config
clusters:
  - name: embedded
    cluster: { server: 'https://127.0.0.1:6443/planes/hub' }
users:
  - name: admin
    user: { token: secret }
contexts:
  - name: hub
    context: { cluster: embedded, user: admin }
  - name: orphan
    context: { cluster: elsewhere, user: admin }
${currentContext ? `current-context: ${currentContext}` : ''}
`;

describe('loadKubeConfig', () => {
  let dir: string;
  let withCurrent: string;
  let withoutCurrent: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netpresence-kubeconfig-'));
    withCurrent = join(dir, 'current');
    withoutCurrent = join(dir, 'no-current');
    await writeFile(withCurrent, kubeconfig('hub'));
    await writeFile(withoutCurrent, kubeconfig(undefined));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('uses the current context when none is named', () => {
    const kc = loadKubeConfig(withCurrent);
    assert.equal(kc.getCurrentContext(), 'hub');
    assert.equal(kc.getCurrentCluster()?.server, 'https://127.0.0.1:6443/planes/hub');
  });

  it('uses the named context over the current one', () => {
    assert.equal(loadKubeConfig(withoutCurrent, 'hub').getCurrentContext(), 'hub');
  });

  it('names the file when it cannot be read', () => {
    const missing = join(dir, 'absent');
    assert.throws(() => loadKubeConfig(missing), {
      message: new RegExp(`^cannot read kubeconfig ${missing}: `),
    });
  });

  it('names the file, the context and the contexts it has when the context is missing', () => {
    assert.throws(() => loadKubeConfig(withCurrent, 'cell'), {
      message: missingContext(withCurrent, 'cell', ['hub', 'orphan']),
    });
  });

  it('asks for a context when the file sets no current one', () => {
    assert.throws(() => loadKubeConfig(withoutCurrent), {
      message: noCurrentContext(withoutCurrent, ['hub', 'orphan']),
    });
  });

  it('refuses a context whose cluster is not in the file', () => {
    assert.throws(() => loadKubeConfig(withCurrent, 'orphan'), {
      message: contextWithoutCluster(withCurrent, 'orphan'),
    });
  });
});
