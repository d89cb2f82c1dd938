import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import { FakeClock } from '../../runtime/clock.ts';
import { rootLogger } from '../../runtime/logging.ts';
import { accessOf, embeddedMembers } from './members.ts';

const log = rootLogger({ level: 'silent' });
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function cluster(name: string, spec: Cluster['spec'] = {}): Cluster {
  return { metadata: { name }, spec };
}

function planeConfig(server: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: false }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kubeConfig;
}

const SECRET = 'karmada-cluster/cell-dfw-2';

describe('embedded members', () => {
  it('reaches Cluster X at the fleet plane X, and names the missing plane otherwise', async () => {
    const asked: string[] = [];
    const members = embeddedMembers({
      kubeConfigFor: (plane) => {
        asked.push(plane);
        return plane === 'cell-dfw-1' ? planeConfig('https://127.0.0.1:1/planes/cell-dfw-1') : undefined;
      },
      clock: new FakeClock(),
      log,
    });
    const plane = await members.plane(cluster('cell-dfw-1'));
    assert.equal(plane.kubeConfig.getCurrentCluster()?.server, 'https://127.0.0.1:1/planes/cell-dfw-1');
    assert.equal(await members.plane(cluster('cell-dfw-1')), plane, 'the same plane, its informers shared');
    assert.deepEqual(asked, ['cell-dfw-1']);
    await assert.rejects(members.plane(cluster('cell-ams-1')), {
      message: 'cluster cell-ams-1: no plane named cell-ams-1 in the fleet',
    });
    await members.forget('cell-dfw-1');
    assert.notEqual(await members.plane(cluster('cell-dfw-1')), plane, 'forgotten: reached afresh');
    await members.close();
  });
});

describe('standalone member access', () => {
  it("uses a Secret's kubeconfig and its current context, ignoring apiEndpoint", () => {
    const kubeconfig = planeConfig('https://member.example:6443').exportConfig();
    const access = accessOf(
      cluster('cell-dfw-1', { apiEndpoint: 'https://ignored.example' }),
      { metadata: { name: 'cell-dfw-1' }, data: { kubeconfig: base64(kubeconfig) } },
      'karmada-cluster/cell-dfw-1',
    );
    assert.equal(access().getCurrentCluster()?.server, 'https://member.example:6443');
  });

  it('connects to apiEndpoint with the token, CA bundle, TLS and proxy settings', () => {
    const access = accessOf(
      cluster('cell-dfw-2', {
        apiEndpoint: 'https://member.example:6443',
        insecureSkipTLSVerification: true,
        proxyURL: 'http://proxy.example:3128',
      }),
      {
        metadata: { name: 'cell-dfw-2' },
        data: { token: base64('secret-token\n'), caBundle: base64('PEM') },
      },
      SECRET,
    );
    const kubeConfig = access();
    const member = kubeConfig.getCurrentCluster()!;
    assert.equal(member.server, 'https://member.example:6443');
    assert.equal(member.skipTLSVerify, true);
    assert.equal(member.proxyUrl, 'http://proxy.example:3128');
    assert.equal(member.caData, base64('PEM'));
    assert.equal(kubeConfig.getCurrentUser()?.token, 'secret-token');
  });

  it('names the Cluster, the Secret and the missing key when it cannot connect', () => {
    assert.throws(
      () =>
        accessOf(
          cluster('cell-dfw-2', { apiEndpoint: 'https://m' }),
          { metadata: {}, data: { caBundle: 'eA==' } },
          SECRET,
        ),
      (err: Error) =>
        err.message.includes('cluster cell-dfw-2') &&
        err.message.includes(`Secret ${SECRET}`) &&
        err.message.includes('token'),
    );
    assert.throws(
      () => accessOf(cluster('cell-dfw-2'), { metadata: {}, data: { token: base64('t') } }, SECRET),
      /cluster cell-dfw-2: Secret karmada-cluster\/cell-dfw-2 holds a token but spec\.apiEndpoint is not set/,
    );
  });
});
