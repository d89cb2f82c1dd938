import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.ts';
import { preservedManifest } from './preserve.ts';
import { retained } from './retain-merge.ts';

const MANAGED_LABELS = 'resourcetemplate.karmada.io/managed-labels';
const MANAGED_ANNOTATIONS = 'resourcetemplate.karmada.io/managed-annotations';

function withLists(object: KubeObject): KubeObject {
  const labels = object.metadata.labels ?? {};
  const annotations = { ...object.metadata.annotations, [MANAGED_LABELS]: '', [MANAGED_ANNOTATIONS]: '' };
  annotations[MANAGED_LABELS] = Object.keys(labels).sort().join(',');
  annotations[MANAGED_ANNOTATIONS] = Object.keys(annotations).sort().join(',');
  return { ...object, metadata: { ...object.metadata, annotations } };
}

const namespaced = withLists({
  apiVersion: 'networking.datumapis.com/v1alpha',
  kind: 'NetworkContext',
  metadata: {
    name: 'default-dfw',
    namespace: 'ns-a',
    labels: {
      'networking.datumapis.com/location': 'dfw',
      'clusterpropagationpolicy.karmada.io/permanent-id': 'cpp',
      'karmada.io/managed': 'true',
      'resourcebinding.karmada.io/permanent-id': 'rb',
      'work.karmada.io/permanent-id': 'w',
    },
    annotations: {
      'clusterpropagationpolicy.karmada.io/name': 'location-dfw',
      'resourcetemplate.karmada.io/generation': '3',
      'resourcebinding.karmada.io/namespace': 'ns-a',
      'resourcebinding.karmada.io/name': 'default-dfw-networkcontext',
      'resourcetemplate.karmada.io/uid': 'uid',
      'work.karmada.io/name': 'default-dfw-855f9b568d',
      'work.karmada.io/namespace': 'karmada-es-cell-dfw-1',
      'work.karmada.io/conflict-resolution': 'abort',
    },
  },
  spec: { mtu: 1500 },
});

describe('preserveResourcesOnDeletion', () => {
  it("keeps a namespaced copy's own labels, its CPP claim and conflict resolution, and nothing else of the engine's", () => {
    const observed = {
      ...structuredClone(namespaced),
      metadata: { ...structuredClone(namespaced.metadata), resourceVersion: '9' },
    };
    observed.metadata.labels!.local = '1';
    const copy = retained(preservedManifest(namespaced), observed);
    assert.deepEqual(copy.metadata.labels, {
      'networking.datumapis.com/location': 'dfw',
      'clusterpropagationpolicy.karmada.io/permanent-id': 'cpp',
      local: '1',
    });
    assert.deepEqual(copy.metadata.annotations, {
      'clusterpropagationpolicy.karmada.io/name': 'location-dfw',
      'work.karmada.io/conflict-resolution': 'abort',
    });
  });

  it('removes the PP claim of a namespaced object', () => {
    const pp = structuredClone(namespaced);
    pp.metadata.labels!['propagationpolicy.karmada.io/permanent-id'] = 'pp';
    pp.metadata.annotations!['propagationpolicy.karmada.io/namespace'] = 'ns-a';
    pp.metadata.annotations!['propagationpolicy.karmada.io/name'] = 'pin';
    const preserved = preservedManifest(pp);
    assert.equal(preserved.metadata.labels!['propagationpolicy.karmada.io/permanent-id'], undefined);
    assert.equal(preserved.metadata.annotations!['propagationpolicy.karmada.io/name'], undefined);
    assert.equal(pp.metadata.labels!['propagationpolicy.karmada.io/permanent-id'], 'pp', 'not mutated');
  });

  it("keeps a cluster-scoped copy's CRB keys and removes its CPP claim", () => {
    const cluster: KubeObject = {
      apiVersion: 'networking.datumapis.com/v1alpha',
      kind: 'ServingLocation',
      metadata: {
        name: 'dfw',
        labels: {
          'clusterpropagationpolicy.karmada.io/permanent-id': 'cpp',
          'clusterresourcebinding.karmada.io/permanent-id': 'crb',
          'karmada.io/managed': 'true',
        },
        annotations: {
          'clusterpropagationpolicy.karmada.io/name': 'location-dfw',
          'clusterresourcebinding.karmada.io/name': 'dfw-servinglocation',
          'work.karmada.io/conflict-resolution': 'abort',
        },
      },
    };
    const preserved = preservedManifest(cluster);
    assert.deepEqual(preserved.metadata.labels, { 'clusterresourcebinding.karmada.io/permanent-id': 'crb' });
    assert.deepEqual(preserved.metadata.annotations, {
      'clusterresourcebinding.karmada.io/name': 'dfw-servinglocation',
      'work.karmada.io/conflict-resolution': 'abort',
    });
  });
});
