import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import type { Location } from '../../apis/networking/v1alpha/location.ts';
import {
  newPolicy,
  newServingLocation,
  policyPatch,
  removalGuard,
  servingLocationPatch,
  servingLocationSpec,
} from './location-publication.ts';

const topology = { 'topology.datum.net/city-code': 'DFW', 'topology.datum.net/region': 'us-central1' };
const location = (generation: number, extra: Record<string, string> = {}): Location => ({
  metadata: { name: 'us-central-1', generation },
  spec: { locationClassName: 'datum-managed', topology: { ...topology, ...extra }, provider: {} },
});

function cluster(name: string, label: string | undefined, ready: boolean): Cluster {
  return {
    metadata: { name, ...(label !== undefined && { labels: { 'topology.datum.net/location': label } }) },
    spec: {},
    status: {
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          reason: 'r',
          message: '',
          lastTransitionTime: '2030-01-01T00:00:00Z',
        },
      ],
    },
  };
}

describe('location publication', () => {
  it('keeps publishedAt while generation, city code and topology are unchanged', () => {
    const held = newServingLocation('us-central-1', servingLocationSpec(location(1), undefined, 'T1'));
    const again = servingLocationSpec(location(1), held, 'T2');
    assert.equal(again.source?.publishedAt, 'T1');
    assert.equal(servingLocationPatch(held, again), undefined);
  });

  it('moves publishedAt and patches the spec when the content changes', () => {
    const held = newServingLocation('us-central-1', servingLocationSpec(location(1), undefined, 'T1'));
    const edited = servingLocationSpec(
      location(2, { 'topology.datum.net/region': 'us-central2' }),
      held,
      'T2',
    );
    assert.deepEqual(servingLocationPatch(held, edited), {
      spec: {
        topology: { 'topology.datum.net/region': 'us-central2' },
        source: { generation: 2, publishedAt: 'T2' },
      },
    });
  });

  it('brings back a spec edited by someone else, removed keys included', () => {
    const spec = servingLocationSpec(location(1), undefined, 'T1');
    const held = newServingLocation('us-central-1', { ...spec, topology: { ...spec.topology, extra: 'x' } });
    assert.deepEqual(servingLocationPatch(held, spec), { spec: { topology: { extra: null } } });
  });

  it('owns the policy selectors, conflict resolution and affinity, and nothing else', () => {
    const held = newPolicy('us-central-1');
    held.spec.priority = 0;
    assert.equal(policyPatch(held, 'us-central-1'), undefined);
    held.spec.resourceSelectors = held.spec.resourceSelectors.slice(0, 1);
    held.spec.placement = { clusterAffinity: { clusterNames: ['cell-x'] } };
    assert.deepEqual(policyPatch(held, 'us-central-1'), {
      spec: {
        resourceSelectors: newPolicy('us-central-1').spec.resourceSelectors,
        placement: {
          clusterAffinity: {
            clusterNames: null,
            labelSelector: { matchLabels: { 'topology.datum.net/location': 'us-central-1' } },
          },
        },
      },
    });
  });

  it('holds a removal while a Ready cluster serves the location or carries no label', () => {
    assert.deepEqual(
      removalGuard('l', [cluster('b', 'l', true), cluster('a', 'l', true), cluster('c', undefined, true)]),
      {
        reason: 'ClustersStillServing',
        message: 'clusters still labelled for this location: a, b',
      },
    );
    assert.deepEqual(removalGuard('l', [cluster('a', '', true), cluster('z', undefined, false)]), {
      reason: 'FleetNotFullyLabelled',
      message: 'no cluster claims this location, but 1 Ready cluster(s) carry no location label at all: a',
    });
    assert.equal(removalGuard('l', [cluster('a', 'other', true), cluster('z', 'l', false)]), undefined);
  });
});
