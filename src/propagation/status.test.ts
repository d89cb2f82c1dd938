import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import type { Work } from '../apis/work/v1alpha1/work.ts';
import type { ObjectStore } from '../runtime/informer-contract.ts';
import type { Binding } from './hub-view.ts';
import { aggregate, fullyApplied, nothingToReportYet } from './status.ts';

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

  it('writes nothing before the scheduler answers, nor while its Works are to be created or applied', () => {
    const condition = (type: string, status: 'True' | 'False') => ({
      type,
      status,
      reason: 'r',
      message: 'm',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    const cluster = (name: string, ready: 'True' | 'False', syncMode?: 'Pull'): Cluster => ({
      metadata: { name },
      spec: syncMode ? { syncMode } : {},
      status: { conditions: [condition('Ready', ready)] },
    });
    const all = [cluster('a', 'True'), cluster('b', 'False'), cluster('c', 'True', 'Pull')];
    const clusters = {
      get: (_namespace: string | undefined, name: string) => all.find((c) => c.metadata.name === name),
    } as unknown as ObjectStore<Cluster>;
    const scheduled = (...names: string[]) => ({
      ...binding(...names),
      status: { conditions: [condition('Scheduled', names.length > 0 ? 'True' : 'False')] },
    });
    assert.equal(nothingToReportYet(binding(), [], clusters), true, 'new, unscheduled, no Work');
    assert.equal(nothingToReportYet(scheduled('a'), [], clusters), true, 'its Work not created yet');
    assert.equal(nothingToReportYet(scheduled('a'), [work('a')], clusters), true, 'execution is to apply it');
    assert.equal(nothingToReportYet(scheduled(), [], clusters), false, 'NoClusterFit: FullyApplied=False');
    assert.equal(nothingToReportYet(scheduled('a'), [work('a', 'True')], clusters), false, 'applied');
    assert.equal(nothingToReportYet(scheduled('a'), [work('a', 'False')], clusters), false, 'refused');
    assert.equal(nothingToReportYet(scheduled('b'), [work('b')], clusters), false, 'an unready cluster');
    assert.equal(nothingToReportYet(scheduled('c'), [work('c')], clusters), false, 'a Pull cluster');
    assert.equal(nothingToReportYet(scheduled('d'), [work('d')], clusters), false, 'no such cluster');
    assert.equal(
      nothingToReportYet(scheduled('a'), [work('a', undefined, true)], clusters),
      false,
      'deleting',
    );
    const reported = { ...scheduled('a'), status: { conditions: [condition('FullyApplied', 'True')] } };
    assert.equal(
      nothingToReportYet(reported, [work('a')], clusters),
      false,
      'a held FullyApplied is kept current',
    );
  });
});
