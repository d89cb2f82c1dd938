import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import { passesAffinity } from './affinity.ts';
import { noClusterFitMessage } from './no-cluster-fit.ts';
import { schedule } from './placement.ts';

function cluster(
  name: string,
  labels: Record<string, string>,
  ready: 'True' | 'False' | 'Unknown' | 'missing' = 'True',
  spec: Cluster['spec'] = {},
  deleting = false,
): Cluster {
  return {
    metadata: { name, labels, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec,
    status:
      ready !== 'missing'
        ? {
            conditions: [
              {
                type: 'Ready',
                status: ready,
                reason: 'r',
                message: 'm',
                lastTransitionTime: '2026-01-01T00:00:00Z',
              },
            ],
          }
        : {},
  };
}

const loc = (location: string) => ({ 'topology.datum.net/location': location });
const dfw1 = cluster('cell-dfw-1', loc('dfw'), 'True', { provider: 'gcp', region: 'us-south', zones: ['a'] });
const dfw2 = cluster('cell-dfw-2', loc('dfw'), 'True', { provider: 'gcp', region: 'us-south', zones: [] });
const ord1 = cluster('cell-ord-1', loc('ord'), 'True', {
  provider: 'aws',
  region: 'us-central',
  zones: ['a', 'b'],
});
const fleet = [dfw1, dfw2, ord1];
const names = (clusters: Cluster[]) => clusters.map((c) => c.metadata.name);

describe('the affinity filter', () => {
  it('applies exclude, the label selector and cluster names', () => {
    const term = { labelSelector: { matchLabels: loc('dfw') }, exclude: ['cell-dfw-2'] };
    assert.deepEqual(names(fleet.filter((c) => passesAffinity(c, term))), ['cell-dfw-1']);
    const named = { clusterNames: ['cell-dfw-2', 'cell-ord-1'], labelSelector: { matchLabels: loc('dfw') } };
    assert.deepEqual(names(fleet.filter((c) => passesAffinity(c, named))), ['cell-dfw-2']);
  });

  it('reads provider, region and zones through the field selector', () => {
    const fields = (...matchExpressions: { key: string; operator: string; values?: string[] }[]) => ({
      fieldSelector: { matchExpressions },
    });
    const pick = (term: object) => names(fleet.filter((c) => passesAffinity(c, term)));
    assert.deepEqual(
      pick(fields({ key: 'provider', operator: 'In', values: ['gcp'] }, { key: 'zone', operator: 'Exists' })),
      ['cell-dfw-1'],
    );
    assert.deepEqual(pick(fields({ key: 'region', operator: 'NotIn', values: ['us-south'] })), [
      'cell-ord-1',
    ]);
    assert.deepEqual(pick(fields({ key: 'zone', operator: 'DoesNotExist' })), ['cell-dfw-2']);
    assert.deepEqual(pick(fields({ key: 'zone', operator: 'In', values: ['b'] })), ['cell-ord-1']);
    assert.deepEqual(pick(fields({ key: 'zone', operator: 'Gt', values: ['1'] })), []);
    assert.deepEqual(pick(fields({ key: 'colour', operator: 'DoesNotExist' })), [
      'cell-dfw-1',
      'cell-dfw-2',
      'cell-ord-1',
    ]);
    assert.deepEqual(pick(fields({ key: 'provider', operator: 'In' })), [], 'an invalid entry fails');
  });
});

describe('placement', () => {
  it('selects every feasible cluster, sorted, and passes all without an affinity', () => {
    assert.deepEqual(
      schedule({
        placement: undefined,
        placed: [],
        observedAffinityName: undefined,
        clusters: [ord1, dfw2, dfw1],
      }),
      {
        fit: true,
        clusters: ['cell-dfw-1', 'cell-dfw-2', 'cell-ord-1'],
      },
    );
  });

  it('never newly selects an unready cluster, but keeps one already placed', () => {
    const unready = cluster('cell-dfw-2', loc('dfw'), 'False');
    const placement = { clusterAffinity: { labelSelector: { matchLabels: loc('dfw') } } };
    const input = { placement, observedAffinityName: undefined, clusters: [dfw1, unready, ord1] };
    assert.deepEqual(schedule({ ...input, placed: [] }), { fit: true, clusters: ['cell-dfw-1'] });
    assert.deepEqual(schedule({ ...input, placed: ['cell-dfw-1', 'cell-dfw-2'] }), {
      fit: true,
      clusters: ['cell-dfw-1', 'cell-dfw-2'],
    });
  });

  it('never places a cluster being deleted', () => {
    const deleting = cluster('cell-dfw-2', loc('dfw'), 'True', {}, true);
    assert.deepEqual(
      schedule({
        placement: undefined,
        placed: ['cell-dfw-2'],
        observedAffinityName: undefined,
        clusters: [dfw1, deleting],
      }),
      { fit: true, clusters: ['cell-dfw-1'] },
    );
  });

  it('uses clusterAffinity alone when both forms are set', () => {
    const placement = {
      clusterAffinity: { clusterNames: ['cell-ord-1'] },
      clusterAffinities: [{ affinityName: 'x', clusterNames: ['cell-dfw-1'] }],
    };
    assert.deepEqual(schedule({ placement, placed: [], observedAffinityName: undefined, clusters: fleet }), {
      fit: true,
      clusters: ['cell-ord-1'],
    });
  });

  it('fits clusterAffinities first from the observed term, never returning to an earlier one', () => {
    const placement = {
      clusterAffinities: [
        { affinityName: 'primary', labelSelector: { matchLabels: loc('ams') } },
        { affinityName: 'fallback', labelSelector: { matchLabels: loc('dfw') } },
      ],
    };
    assert.deepEqual(schedule({ placement, placed: [], observedAffinityName: undefined, clusters: fleet }), {
      fit: true,
      clusters: ['cell-dfw-1', 'cell-dfw-2'],
      affinityName: 'fallback',
    });
    const ams = cluster('cell-ams-1', loc('ams'));
    const withAms = [...fleet, ams];
    assert.equal(
      (
        schedule({ placement, placed: [], observedAffinityName: 'fallback', clusters: withAms }) as {
          affinityName: string;
        }
      ).affinityName,
      'fallback',
    );
    assert.equal(
      (
        schedule({ placement, placed: [], observedAffinityName: 'renamed', clusters: withAms }) as {
          affinityName: string;
        }
      ).affinityName,
      'primary',
    );
  });

  it('reports NoClusterFit with the first term tried', () => {
    const placement = {
      clusterAffinities: [{ affinityName: 'primary', labelSelector: { matchLabels: loc('ams') } }],
    };
    const outcome = schedule({ placement, placed: [], observedAffinityName: undefined, clusters: fleet });
    assert.deepEqual(outcome, {
      fit: false,
      message:
        '0/3 clusters are available: 3 cluster(s) did not match the placement cluster affinity constraint.',
    });
  });
});

describe('the NoClusterFit message', () => {
  it('counts each cluster under the first filter ruling it out, sorted', () => {
    const term = { labelSelector: { matchLabels: loc('dfw') } };
    const clusters = [
      cluster('a', loc('dfw'), 'False'),
      cluster('b', loc('dfw'), 'missing'),
      cluster('c', loc('dfw'), 'Unknown'),
      cluster('d', loc('ord'), 'False'),
      cluster('e', loc('dfw'), 'True', {}, true),
    ];
    assert.equal(
      noClusterFitMessage(clusters, term),
      '0/5 clusters are available: 1 cluster(s) did not match the placement cluster affinity constraint, ' +
        '1 cluster(s) had untolerated taint {cluster.karmada.io/unreachable:NoSchedule}, ' +
        '2 cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}.',
    );
  });

  it('says no cluster exists when there is none, or every one is being deleted', () => {
    assert.equal(noClusterFitMessage([], undefined), '0/0 clusters are available: no cluster exists.');
    assert.equal(
      noClusterFitMessage([cluster('a', {}, 'True', {}, true)], undefined),
      '0/1 clusters are available: no cluster exists.',
    );
  });
});
