import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../client/types.ts';
import { claimOf, claimPatch, effectivePatch, patched, unclaimPatch } from './policy-claim.ts';

const PP_ID = 'propagationpolicy.karmada.io/permanent-id';
const CPP_ID = 'clusterpropagationpolicy.karmada.io/permanent-id';
const CPP_NAME = 'clusterpropagationpolicy.karmada.io/name';

function object(labels: Record<string, string>, annotations: Record<string, string>): KubeObject {
  return { metadata: { name: 't', labels, annotations } };
}

describe('claims', () => {
  it('reads a complete claim only, the PP claim first', () => {
    const both = object(
      { [PP_ID]: 'pp', [CPP_ID]: 'cpp' },
      {
        'propagationpolicy.karmada.io/namespace': 'ns-a',
        'propagationpolicy.karmada.io/name': 'pin',
        [CPP_NAME]: 'location-dfw',
      },
    );
    assert.deepEqual(claimOf(both), { tier: 'PropagationPolicy', namespace: 'ns-a', name: 'pin', id: 'pp' });
    assert.deepEqual(claimOf(object({ [CPP_ID]: 'cpp' }, { [CPP_NAME]: 'location-dfw' })), {
      tier: 'ClusterPropagationPolicy',
      name: 'location-dfw',
      id: 'cpp',
    });
    assert.equal(claimOf(object({ [CPP_ID]: 'cpp' }, {})), undefined);
    assert.equal(claimOf(object({ [CPP_ID]: '' }, { [CPP_NAME]: 'x' })), undefined);
  });

  it('a PP claim removes the CPP keys; a CPP claim leaves PP keys alone', () => {
    const pp = claimPatch({ tier: 'PropagationPolicy', namespace: 'ns-a', name: 'pin', id: 'pp' });
    const held = object({ [CPP_ID]: 'cpp', app: 'web' }, { [CPP_NAME]: 'location-dfw' });
    assert.deepEqual(patched(held.metadata.labels, pp.labels), { app: 'web', [PP_ID]: 'pp' });
    const cpp = claimPatch({ tier: 'ClusterPropagationPolicy', name: 'location-dfw', id: 'cpp' });
    assert.deepEqual(patched({ [PP_ID]: 'pp' }, cpp.labels), { [PP_ID]: 'pp', [CPP_ID]: 'cpp' });
  });

  it('an effective patch names only what would change', () => {
    const held = object({ [CPP_ID]: 'cpp' }, { [CPP_NAME]: 'location-dfw' });
    assert.equal(
      effectivePatch(held, claimPatch({ tier: 'ClusterPropagationPolicy', name: 'location-dfw', id: 'cpp' })),
      undefined,
    );
    assert.deepEqual(effectivePatch(held, unclaimPatch('ClusterPropagationPolicy')), {
      labels: { [CPP_ID]: null },
      annotations: { [CPP_NAME]: null },
    });
    assert.equal(effectivePatch(object({}, {}), unclaimPatch('PropagationPolicy')), undefined);
  });
});
