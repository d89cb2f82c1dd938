import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stripped } from './strip.ts';

describe('strip list', () => {
  it('removes server metadata, ownerReferences, finalizers and status and keeps the rest verbatim', () => {
    const template = {
      apiVersion: 'networking.datumapis.com/v1alpha',
      kind: 'NetworkContext',
      metadata: {
        name: 'default-dfw',
        namespace: 'ns-a',
        uid: 'u',
        resourceVersion: '7',
        generation: 3,
        creationTimestamp: 't',
        deletionTimestamp: 't',
        deletionGracePeriodSeconds: 0,
        managedFields: [],
        selfLink: '/x',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'o' }],
        finalizers: ['hub.example/x'],
        labels: { a: '1' },
        annotations: { b: '2' },
      },
      spec: { mtu: 1500 },
      status: { conditions: [] },
      extra: { kept: true },
    };
    assert.deepEqual(stripped(template), {
      apiVersion: 'networking.datumapis.com/v1alpha',
      kind: 'NetworkContext',
      metadata: { name: 'default-dfw', namespace: 'ns-a', labels: { a: '1' }, annotations: { b: '2' } },
      spec: { mtu: 1500 },
      extra: { kept: true },
    });
    assert.equal(template.metadata.uid, 'u', 'the argument is not mutated');
  });

  it('prunes a Service clusterIP unless it is headless', () => {
    const service = (clusterIP: string) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { clusterIP, clusterIPs: [clusterIP], ports: [] },
    });
    assert.deepEqual(stripped(service('10.0.0.1')).spec, { ports: [] });
    assert.equal((stripped(service('None')).spec as { clusterIP: string }).clusterIP, 'None');
  });

  it("prunes a Deployment's revision annotation and a service-account-token Secret's data", () => {
    const deployment = stripped({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', annotations: { 'deployment.kubernetes.io/revision': '4', keep: 'x' } },
    });
    assert.deepEqual(deployment.metadata.annotations, { keep: 'x' });
    const secret = stripped({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      type: 'kubernetes.io/service-account-token',
      data: { token: 'eA==' },
    });
    assert.equal(secret.data, undefined);
  });

  it("prunes a Job's generated selector and template labels and ttlSecondsAfterFinished", () => {
    const job = stripped({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: {
        ttlSecondsAfterFinished: 10,
        selector: { matchLabels: { 'controller-uid': 'x' } },
        template: { metadata: { labels: { 'controller-uid': 'x', 'job-name': 'j', app: 'a' } } },
      },
    });
    assert.deepEqual(job.spec, { template: { metadata: { labels: { app: 'a' } } } });
  });
});
