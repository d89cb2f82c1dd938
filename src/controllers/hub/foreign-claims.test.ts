import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.ts';
import { foreignClaim } from './foreign-claims.ts';

function claimed(labels: Record<string, string>, annotations: Record<string, string>): KubeObject {
  return { kind: 'NetworkContext', metadata: { name: 'c', namespace: 'h', labels, annotations } };
}

describe('foreign policy claims', () => {
  it('names a cluster policy other than location-<loc>', () => {
    const object = claimed(
      { 'clusterpropagationpolicy.karmada.io/permanent-id': 'id' },
      { 'clusterpropagationpolicy.karmada.io/name': 'all-contexts' },
    );
    assert.deepEqual(foreignClaim(object, 'us-central-1'), {
      kind: 'ClusterPropagationPolicy',
      name: 'all-contexts',
    });
  });

  it('accepts the location policy itself', () => {
    const object = claimed(
      { 'clusterpropagationpolicy.karmada.io/permanent-id': 'id' },
      { 'clusterpropagationpolicy.karmada.io/name': 'location-us-central-1' },
    );
    assert.equal(foreignClaim(object, 'us-central-1'), undefined);
  });

  it('names any namespaced policy', () => {
    const object = claimed(
      { 'propagationpolicy.karmada.io/permanent-id': 'id' },
      { 'propagationpolicy.karmada.io/name': 'mine', 'propagationpolicy.karmada.io/namespace': 'h' },
    );
    assert.deepEqual(foreignClaim(object, 'us-central-1'), { kind: 'PropagationPolicy', name: 'mine' });
  });

  it('sees no claim without the permanent-id label', () => {
    assert.equal(
      foreignClaim(claimed({}, { 'clusterpropagationpolicy.karmada.io/name': 'x' }), 'l'),
      undefined,
    );
  });
});
