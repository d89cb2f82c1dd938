import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../client/types.ts';
import { buildManifest, bytewiseKeys, conflictResolutionOf, readdressedManifest } from './manifest.ts';

const template: KubeObject = {
  apiVersion: 'networking.datumapis.com/v1alpha',
  kind: 'NetworkContext',
  metadata: {
    name: 'default-dfw',
    namespace: 'ns-a',
    uid: 'template-uid',
    resourceVersion: '42',
    generation: 3,
    creationTimestamp: '2026-01-01T00:00:00Z',
    managedFields: [],
    ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u' }],
    finalizers: ['hub.example/x'],
    labels: {
      'networking.datumapis.com/location': 'dfw',
      app: 'web',
      'clusterpropagationpolicy.karmada.io/permanent-id': 'policy-id',
    },
    annotations: { note: 'hello', 'clusterpropagationpolicy.karmada.io/name': 'location-dfw' },
  },
  spec: { network: { name: 'default' } },
  status: { conditions: [] },
};

const binding = { cluster: false, namespace: 'ns-a', name: 'default-dfw-networkcontext', id: 'binding-id' };
const work = { namespace: 'karmada-es-cell-dfw-1', name: 'default-dfw-855f9b568d', id: 'work-id' };

describe('the manifest', () => {
  it('strips what §5.1 strips and keeps the rest verbatim', () => {
    const manifest = buildManifest(template, binding, work, 'abort');
    assert.equal(manifest.status, undefined);
    for (const field of [
      'uid',
      'resourceVersion',
      'generation',
      'creationTimestamp',
      'managedFields',
      'ownerReferences',
      'finalizers',
    ])
      assert.equal(manifest.metadata[field], undefined, field);
    assert.deepEqual(manifest.spec, template.spec);
    assert.equal(manifest.metadata.namespace, 'ns-a');
    assert.equal(template.metadata.uid, 'template-uid', 'the template is not mutated');
  });

  it('adds the binding and Work keys, and the managed-keys lists computed last', () => {
    const manifest = buildManifest(template, binding, work, 'abort');
    assert.deepEqual(Object.keys(manifest.metadata.labels!).sort(), [
      'app',
      'clusterpropagationpolicy.karmada.io/permanent-id',
      'karmada.io/managed',
      'networking.datumapis.com/location',
      'resourcebinding.karmada.io/permanent-id',
      'work.karmada.io/permanent-id',
    ]);
    const annotations = manifest.metadata.annotations!;
    assert.equal(annotations['resourcetemplate.karmada.io/generation'], '3');
    assert.equal(annotations['resourcetemplate.karmada.io/uid'], 'template-uid');
    assert.equal(annotations['work.karmada.io/name'], 'default-dfw-855f9b568d');
    assert.equal(annotations['work.karmada.io/namespace'], 'karmada-es-cell-dfw-1');
    assert.equal(annotations['work.karmada.io/conflict-resolution'], 'abort');
    assert.equal(
      annotations['resourcetemplate.karmada.io/managed-labels'],
      'app,clusterpropagationpolicy.karmada.io/permanent-id,karmada.io/managed,networking.datumapis.com/location,resourcebinding.karmada.io/permanent-id,work.karmada.io/permanent-id',
    );
    assert.equal(
      annotations['resourcetemplate.karmada.io/managed-annotations'],
      'clusterpropagationpolicy.karmada.io/name,note,resourcebinding.karmada.io/name,resourcebinding.karmada.io/namespace,resourcetemplate.karmada.io/generation,resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels,resourcetemplate.karmada.io/uid,work.karmada.io/conflict-resolution,work.karmada.io/name,work.karmada.io/namespace',
    );
  });

  it('sorts the managed keys by their UTF-8 bytes, as Go sorts strings', () => {
    assert.equal(bytewiseKeys({ b: '', B: '', 'a.b/c': '', a: '', 'a-b': '' }), 'B,a,a-b,a.b/c,b');
    // By UTF-16 code units (JavaScript's own order) U+1F600 (D83D DE00) sorts before U+FFFD; by
    // UTF-8 bytes (F0 9F 98 80 against EF BF BD) after it.
    assert.equal(bytewiseKeys({ '\u{1F600}': '', '\uFFFD': '', z: '' }), 'z,\uFFFD,\u{1F600}');
  });

  it('writes the CRB keys for a cluster-scoped template, and no generation at 0', () => {
    const clusterScoped = {
      ...template,
      metadata: { ...template.metadata, namespace: undefined, generation: 0 },
    };
    const manifest = buildManifest(
      clusterScoped,
      { cluster: true, name: 'dfw-servinglocation', id: 'crb-id' },
      work,
      'overwrite',
    );
    assert.equal(manifest.metadata.labels?.['clusterresourcebinding.karmada.io/permanent-id'], 'crb-id');
    assert.equal(
      manifest.metadata.annotations?.['clusterresourcebinding.karmada.io/name'],
      'dfw-servinglocation',
    );
    assert.equal(manifest.metadata.annotations?.['resourcebinding.karmada.io/name'], undefined);
    assert.equal(manifest.metadata.annotations?.['resourcetemplate.karmada.io/generation'], undefined);
    assert.equal(manifest.metadata.annotations?.['work.karmada.io/conflict-resolution'], 'overwrite');
  });

  it("keeps a headless Service's clusterIP and drops another's", () => {
    const service = (clusterIP: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { clusterIP, clusterIPs: [clusterIP] },
    });
    assert.equal(
      (buildManifest(service('None'), binding, work, 'abort').spec as { clusterIP?: string }).clusterIP,
      'None',
    );
    assert.equal(
      (buildManifest(service('10.0.0.1'), binding, work, 'abort').spec as { clusterIP?: string }).clusterIP,
      undefined,
    );
  });
});

describe('a readdressed manifest', () => {
  it("takes another Work's manifest with this Work's name, namespace and permanent-id", () => {
    const recorded = buildManifest(template, binding, work, 'abort');
    const other = { namespace: 'karmada-es-cell-dfw-3', name: work.name, id: 'work-3' };
    const readdressed = readdressedManifest(recorded, other);
    assert.deepEqual(readdressed, buildManifest(template, binding, other, 'abort'));
    assert.equal(
      recorded.metadata.labels?.['work.karmada.io/permanent-id'],
      'work-id',
      'the recorded one is not mutated',
    );
  });
});

describe('conflict resolution', () => {
  const annotated = (value: string): KubeObject => ({
    metadata: { name: 't', annotations: { 'work.karmada.io/conflict-resolution': value } },
  });

  it("the template's exact value decides, else the binding's", () => {
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);
    assert.equal(conflictResolutionOf(annotated('overwrite'), 'Abort', warn), 'overwrite');
    assert.equal(conflictResolutionOf(annotated('abort'), 'Overwrite', warn), 'abort');
    assert.equal(conflictResolutionOf({ metadata: { name: 't' } }, 'Overwrite', warn), 'overwrite');
    assert.equal(conflictResolutionOf({ metadata: { name: 't' } }, undefined, warn), 'abort');
    assert.deepEqual(warnings, []);
  });

  it('ignores any other template value, with a warning', () => {
    const warnings: string[] = [];
    assert.equal(
      conflictResolutionOf(annotated('Overwrite'), 'Abort', (m) => warnings.push(m)),
      'abort',
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /"Overwrite"/);
  });
});
