import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Network } from '../../apis/networking/v1alpha/network.ts';
import type { NetworkContext } from '../../apis/networking/v1alpha/network-context.ts';
import { contextPatch, newContext, projectContext } from './context-projection.ts';

const key = { hubNamespace: 'ns-u', network: 'vpc', location: 'us-central-1' };
const network: Network = {
  metadata: { name: 'vpc', namespace: 'default', uid: 'uid-1', generation: 3 },
  spec: { ipam: { mode: 'Auto' }, ipFamilies: ['IPv6', 'IPv4'], mtu: 8000 },
};
const projection = projectContext(key, 'cluster-project-alpha', 'default', network);

describe('context projection', () => {
  it('carries the network rules, the five labels and one controller reference', () => {
    const context = newContext('vpc-us-central-1', 'default', projection);
    assert.deepEqual(context.spec, {
      network: { name: 'vpc' },
      location: { name: 'us-central-1' },
      ipFamilies: ['IPv6', 'IPv4'],
      mtu: 8000,
      networkGeneration: 3,
    });
    assert.equal(context.metadata.labels?.['networking.datumapis.com/network-uid'], 'uid-1');
    assert.equal(
      context.metadata.labels?.['meta.datumapis.com/upstream-cluster-name'],
      'cluster-project-alpha',
    );
    assert.deepEqual(context.metadata.ownerReferences, [
      {
        apiVersion: 'networking.datumapis.com/v1alpha',
        kind: 'Network',
        name: 'vpc',
        uid: 'uid-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it('patches nothing on a context that already matches', () => {
    assert.equal(contextPatch(newContext('vpc-us-central-1', 'default', projection), projection), undefined);
  });

  it('patches only the owned keys that differ, keeping foreign labels and owners', () => {
    const held: NetworkContext = {
      metadata: {
        name: 'vpc-us-central-1',
        namespace: 'default',
        labels: { ...projection.labels, 'networking.datumapis.com/network-uid': 'old', mine: 'kept' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'cm' }],
      },
      spec: { ...projection.spec, ipFamilies: ['IPv6'], mtu: 1460 },
    };
    assert.deepEqual(
      contextPatch(held, { ...projection, spec: { ...projection.spec, ipFamilies: undefined } }),
      {
        metadata: {
          labels: { 'networking.datumapis.com/network-uid': 'uid-1' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'cm' }, projection.owner],
        },
        spec: { ipFamilies: null, mtu: 8000 },
      },
    );
  });

  it('leaves a controller reference to something else alone', () => {
    const held = newContext('vpc-us-central-1', 'default', projection);
    held.metadata.ownerReferences = [{ ...projection.owner, uid: 'earlier' }];
    assert.equal(contextPatch(held, projection), undefined);
  });
});
