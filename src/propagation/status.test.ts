import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Work } from '../apis/work/v1alpha1/work.ts';
import type { Binding } from './hub-view.ts';
import { aggregate, fullyApplied } from './status.ts';

function work(cluster: string, applied?: 'True' | 'False', deleting = false): Work {
  return {
    metadata: {
      name: 'w',
      namespace: `karmada-es-${cluster}`,
      ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    status: applied
      ? {
          conditions: [
            {
              type: 'Applied',
              status: applied,
              reason: 'r',
              message: `applied ${applied}`,
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ],
        }
      : {},
  };
}

function binding(...clusters: string[]): Binding {
  return {
    metadata: { name: 'b', namespace: 'ns-a' },
    spec: {
      resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'c' },
      clusters: clusters.map((name) => ({ name })),
    },
  };
}

describe('binding status', () => {
  it('aggregates one item per live Work, sorted by cluster, with the failure message', () => {
    assert.deepEqual(aggregate([work('b', 'False'), work('a', 'True'), work('c', 'True', true), work('d')]), [
      { clusterName: 'a', applied: true, health: 'Unknown' },
      { clusterName: 'b', applied: false, appliedMessage: 'applied False', health: 'Unknown' },
      { clusterName: 'd', applied: false, health: 'Unknown' },
    ]);
  });

  it('is fully applied only with one applied Work per listed cluster and no other', () => {
    const both = aggregate([work('a', 'True'), work('b', 'True')]);
    assert.equal(fullyApplied(binding('a', 'b'), both), true);
    assert.equal(fullyApplied(binding('a'), both), false, 'an extra live Work');
    assert.equal(fullyApplied(binding('a', 'b', 'c'), both), false, 'a missing Work');
    assert.equal(
      fullyApplied(binding('a', 'b'), aggregate([work('a', 'True'), work('b')])),
      false,
      'a Work not applied',
    );
    assert.equal(fullyApplied(binding(), []), false, 'no cluster');
  });
});
