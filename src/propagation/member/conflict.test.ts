import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.ts';
import { AbortError, claimingPolicy, mayWrite, UNNAMED_POLICY } from './conflict.ts';

function object(labels: Record<string, string> = {}, annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'networking.datumapis.com/v1alpha',
    kind: 'NetworkContext',
    metadata: { name: 'default-dfw', namespace: 'ns-a', labels, annotations },
  };
}

const CPP_CLAIM = {
  labels: { 'clusterpropagationpolicy.karmada.io/permanent-id': 'id-1' },
  annotations: { 'clusterpropagationpolicy.karmada.io/name': 'location-dfw' },
};

describe('conflict resolution on the member', () => {
  it('writes a managed object, and an unmanaged one only under exactly overwrite', () => {
    const managed = object({ 'karmada.io/managed': 'true' });
    const unmanaged = object({ team: 'x' });
    const abort = object({}, { 'work.karmada.io/conflict-resolution': 'abort' });
    const overwrite = object({}, { 'work.karmada.io/conflict-resolution': 'overwrite' });
    const capitalised = object({}, { 'work.karmada.io/conflict-resolution': 'Overwrite' });
    assert.equal(mayWrite(managed, abort), true);
    assert.equal(mayWrite(unmanaged, abort), false);
    assert.equal(mayWrite(unmanaged, overwrite), true);
    assert.equal(mayWrite(unmanaged, capitalised), false);
    assert.equal(mayWrite(object({ 'karmada.io/managed': 'false' }), abort), false);
  });

  it('names the claiming policy from the manifest: PP first, then CPP, else the unclaimed wording', () => {
    const pp = object(
      { 'propagationpolicy.karmada.io/permanent-id': 'p', ...CPP_CLAIM.labels },
      {
        'propagationpolicy.karmada.io/namespace': 'ns-a',
        'propagationpolicy.karmada.io/name': 'pin',
        ...CPP_CLAIM.annotations,
      },
    );
    assert.equal(claimingPolicy(pp), 'PropagationPolicy pin');
    assert.equal(
      claimingPolicy(object(CPP_CLAIM.labels, CPP_CLAIM.annotations)),
      'ClusterPropagationPolicy location-dfw',
    );
    assert.equal(claimingPolicy(object(CPP_CLAIM.labels)), UNNAMED_POLICY);
    assert.equal(claimingPolicy(object()), UNNAMED_POLICY);
  });

  it('says which object, which cluster, and what to change', () => {
    const error = new AbortError(object(CPP_CLAIM.labels, CPP_CLAIM.annotations), 'cell-dfw-1');
    assert.equal(
      error.message,
      'resource(kind=NetworkContext, ns-a/default-dfw) already exists in the cluster cell-dfw-1 and is not ' +
        'managed (it lacks karmada.io/managed=true); conflict resolution is abort, so it is left untouched. ' +
        'To adopt it, set spec.conflictResolution: Overwrite on ClusterPropagationPolicy location-dfw, or ' +
        'annotate the template with work.karmada.io/conflict-resolution=overwrite.',
    );
    const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns-a' } };
    assert.match(
      new AbortError(namespace, 'c').message,
      /^resource\(kind=Namespace, \/ns-a\) already exists in the cluster c /,
    );
  });
});
