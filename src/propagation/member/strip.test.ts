import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
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

describe('strip list, copying only what is kept', () => {
  it('gives what copying the whole object and deleting gave, and never changes its argument', () => {
    const server = [
      'creationTimestamp',
      'generation',
      'managedFields',
      'resourceVersion',
      'uid',
      'ownerReferences',
      'finalizers',
    ];
    const metadata = fc.record(
      {
        name: fc.string({ maxLength: 3 }),
        namespace: fc.string({ maxLength: 3 }),
        annotations: fc.dictionary(
          fc.constantFrom('a', 'deployment.kubernetes.io/revision', 'x'),
          fc.string(),
        ),
        labels: fc.dictionary(fc.constantFrom('job-name', 'app'), fc.string()),
        ...Object.fromEntries(server.map((field) => [field, fc.jsonValue({ maxDepth: 2 })])),
      },
      { requiredKeys: ['name'] },
    );
    const object = fc
      .record(
        {
          apiVersion: fc.constantFrom('v1', 'apps/v1', 'batch/v1', 'networking.datumapis.com/v1alpha'),
          kind: fc.constantFrom('Service', 'Deployment', 'Job', 'Secret', 'NetworkContext'),
          metadata,
          spec: fc.jsonValue({ maxDepth: 3 }),
          status: fc.jsonValue({ maxDepth: 3 }),
          data: fc.jsonValue({ maxDepth: 2 }),
          type: fc.constantFrom('Opaque', 'kubernetes.io/service-account-token'),
        },
        { requiredKeys: ['metadata'] },
      )
      .map((generated) => structuredClone(generated)); // plain prototypes, as decoded JSON has
    const reference = (input: Record<string, unknown>) => {
      const copy = structuredClone(input) as Record<string, unknown> & { metadata: Record<string, unknown> };
      for (const field of [...server, 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink'])
        delete copy.metadata[field];
      delete copy.status;
      return copy;
    };
    fc.assert(
      fc.property(object, (input) => {
        const before = structuredClone(input);
        const result = stripped(input as never) as Record<string, unknown>;
        assert.deepEqual(input, before);
        // The kind-specific extras run on both; compare with them applied to the reference too.
        assert.deepEqual(result, stripped(reference(input) as never));
        assert.deepEqual(
          Object.keys(result),
          Object.keys(reference(input)).filter((k) => k in result),
        );
      }),
      { numRuns: 1000, seed: 14 },
    );
  });
});
