import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.ts';
import { foreignClaim, foreignClaimChanged } from './foreign-claims.ts';

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

  it('passes only the events that can change a finding or the count', () => {
    const location = { 'networking.datumapis.com/location': 'us-central-1' };
    const plain = claimed({ ...location }, {});
    const foreign = claimed(
      { ...location, 'clusterpropagationpolicy.karmada.io/permanent-id': 'id' },
      { 'clusterpropagationpolicy.karmada.io/name': 'all-contexts' },
    );
    const churned = (object: KubeObject): KubeObject => ({
      ...object,
      metadata: { ...object.metadata, resourceVersion: '9' },
      status: { phase: 'Ready' },
    });
    assert.equal(foreignClaimChanged({ type: 'ADDED', object: plain }), false, 'an unclaimed object comes');
    assert.equal(foreignClaimChanged({ type: 'ADDED', object: foreign }), true, 'a claimed object comes');
    assert.equal(foreignClaimChanged({ type: 'MODIFIED', object: churned(plain), previous: plain }), false);
    assert.equal(
      foreignClaimChanged({ type: 'MODIFIED', object: churned(foreign), previous: foreign }),
      false,
    );
    assert.equal(
      foreignClaimChanged({ type: 'MODIFIED', object: foreign, previous: plain }),
      true,
      'claimed',
    );
    assert.equal(
      foreignClaimChanged({ type: 'MODIFIED', object: plain, previous: foreign }),
      true,
      'released',
    );
    assert.equal(
      foreignClaimChanged({ type: 'DELETED', object: foreign, previous: foreign }),
      true,
      'a claimed object goes',
    );
    assert.equal(foreignClaimChanged({ type: 'DELETED', object: plain, previous: plain }), false);
  });
});
