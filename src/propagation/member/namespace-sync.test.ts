import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.ts';
import { isCarried, namespaceWork } from './namespace-sync.ts';

function namespace(name: string, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: '5',
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { 'kubernetes.io/metadata.name': name, ...labels },
      annotations: { owner: 'team-a' },
      finalizers: ['x'],
    },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

describe('namespace sync', () => {
  it('carries every namespace but default, the reserved ones, kube-* and those labelled to skip', () => {
    assert.equal(isCarried(namespace('ns-a')), true);
    for (const name of ['default', 'karmada-system', 'karmada-cluster', 'karmada-es-cell-dfw-1', 'kube-foo'])
      assert.equal(isCarried(namespace(name)), false, name);
    assert.equal(
      isCarried(namespace('ns-skip', { 'namespace.karmada.io/skip-auto-propagation': 'True' })),
      false,
    );
    assert.equal(
      isCarried(namespace('ns-skip', { 'namespace.karmada.io/skip-auto-propagation': 'no' })),
      true,
    );
  });

  it("names the Work as Karmada does, owns it by the Namespace and builds §5.1's namespace manifest", () => {
    const work = namespaceWork(namespace('ns-a'), 'cell-dfw-1', undefined);
    assert.equal(work.metadata.name, 'ns-a-75cb9b7478');
    assert.equal(work.metadata.namespace, 'karmada-es-cell-dfw-1');
    assert.deepEqual(work.metadata.ownerReferences, [
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        name: 'ns-a',
        uid: 'uid-ns-a',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.deepEqual(work.metadata.finalizers, ['karmada.io/execution-controller']);
    const id = work.metadata.labels!['work.karmada.io/permanent-id'];
    assert.match(id, /^[0-9a-f-]{36}$/);
    const manifest = work.spec!.workload!.manifests![0] as KubeObject;
    assert.deepEqual(manifest, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'ns-a',
        labels: {
          'kubernetes.io/metadata.name': 'ns-a',
          'karmada.io/managed': 'true',
          'work.karmada.io/permanent-id': id,
        },
        annotations: {
          owner: 'team-a',
          'resourcetemplate.karmada.io/uid': 'uid-ns-a',
          'work.karmada.io/name': 'ns-a-75cb9b7478',
          'work.karmada.io/namespace': 'karmada-es-cell-dfw-1',
          'resourcetemplate.karmada.io/managed-labels':
            'karmada.io/managed,kubernetes.io/metadata.name,work.karmada.io/permanent-id',
          'resourcetemplate.karmada.io/managed-annotations':
            'owner,resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels,' +
            'resourcetemplate.karmada.io/uid,work.karmada.io/name,work.karmada.io/namespace',
        },
      },
      spec: { finalizers: ['kubernetes'] },
    });
    assert.equal(work.spec!.preserveResourcesOnDeletion, false);
  });

  it('keeps the permanent id of the Work it rebuilds', () => {
    const first = namespaceWork(namespace('ns-a'), 'cell-dfw-1', undefined);
    const again = namespaceWork(namespace('ns-a', { extra: '1' }), 'cell-dfw-1', first);
    assert.equal(
      again.metadata.labels!['work.karmada.io/permanent-id'],
      first.metadata.labels!['work.karmada.io/permanent-id'],
    );
  });
});
