import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HUB_REPLICATOR_FINALIZER } from '../../apis/networking/v1alpha/network-context.ts';
import type { KubeObject } from '../../client/types.ts';
import { Store } from '../../runtime/store.ts';
import { firstCopyWaits, keyOfCopy, sourceChanged, type ReplicatorDeps } from './replicator.ts';

const labels = {
  'meta.datumapis.com/upstream-cluster-name': 'cluster-project-alpha',
  'meta.datumapis.com/upstream-namespace': 'default',
  'meta.datumapis.com/upstream-kind': 'NetworkContext',
};

describe('replicator keys', () => {
  it('decode a hub copy back to its source', () => {
    assert.deepEqual(
      keyOfCopy({ metadata: { name: 'vpc-l', namespace: 'ns-u', labels } }, 'NetworkContext'),
      {
        project: 'project-alpha',
        kind: 'NetworkContext',
        namespace: 'default',
        name: 'vpc-l',
      },
    );
  });

  it('ignore objects that are not copies of that kind', () => {
    assert.equal(keyOfCopy({ metadata: { name: 'x', labels } }, 'Subnet'), undefined);
    assert.equal(
      keyOfCopy(
        {
          metadata: {
            name: 'x',
            labels: { ...labels, 'meta.datumapis.com/upstream-cluster-name': 'cluster-' },
          },
        },
        'NetworkContext',
      ),
      undefined,
    );
    assert.equal(keyOfCopy({ metadata: { name: 'x' } }, 'NetworkContext'), undefined);
  });
});

describe('replicator source events', () => {
  const source = (metadata: Record<string, unknown>) => ({
    metadata: { name: 'vpc-l', namespace: 'default', generation: 1, resourceVersion: '2', ...metadata },
  });

  it('wake the key on a status-only change while the source lacks the finalizer', () => {
    // The finalizer write is guarded by the resourceVersion: this change refused it.
    assert.equal(
      sourceChanged({ type: 'MODIFIED', object: source({ resourceVersion: '3' }), previous: source({}) }),
      true,
    );
  });

  it('ignore a status-only change once the source carries the finalizer', () => {
    const finalizers = [HUB_REPLICATOR_FINALIZER];
    assert.equal(
      sourceChanged({
        type: 'MODIFIED',
        object: source({ resourceVersion: '3', finalizers }),
        previous: source({ finalizers }),
      }),
      false,
    );
  });
});

describe("a context's first hub copy", () => {
  const key = {
    project: 'project-alpha',
    kind: 'NetworkContext' as const,
    namespace: 'default',
    name: 'vpc-l',
  };
  const seed = { type: 'Ready', status: 'Unknown', reason: 'Pending', message: 'Waiting for controller' };
  const judgedReady = {
    type: 'Ready',
    status: 'True',
    reason: 'Ready',
    message: 'ok',
    observedGeneration: 1,
  };
  const context = (conditions: object[], subnet?: string) => ({
    metadata: { name: 'vpc-l', namespace: 'default', generation: 1, finalizers: [HUB_REPLICATOR_FINALIZER] },
    spec: {},
    status: { conditions, ...(subnet && { ipam: { ipv6SubnetRef: { name: subnet } } }) },
  });
  const depsWith = (...subnetCopies: string[]) => {
    const copies = new Store<KubeObject>();
    for (const name of subnetCopies)
      copies.apply({
        type: 'ADDED',
        object: { metadata: { name, namespace: 'ns-u', resourceVersion: '1' } },
      });
    return { hub: { Subnet: { copies } } } as unknown as ReplicatorDeps;
  };

  it('waits while the networkcontext controller has not judged the context (Ready is the seed)', () => {
    assert.equal(firstCopyWaits(key, context([seed]), 'ns-u', depsWith()), true);
    assert.equal(firstCopyWaits(key, context([]), 'ns-u', depsWith()), true);
  });

  it('is made once judged when the judgement names no Subnet (IPv4 only, no class, a refusal)', () => {
    assert.equal(firstCopyWaits(key, context([judgedReady]), 'ns-u', depsWith()), false);
    const refused = { ...judgedReady, status: 'False', reason: 'AddressPoolExhausted' };
    assert.equal(firstCopyWaits(key, context([refused]), 'ns-u', depsWith()), false);
  });

  it('waits for the hub copy of the Subnet the judgement names, and is made once it exists', () => {
    assert.equal(firstCopyWaits(key, context([judgedReady], 'vpc-l-ipv6'), 'ns-u', depsWith()), true);
    assert.equal(
      firstCopyWaits(key, context([judgedReady], 'vpc-l-ipv6'), 'ns-u', depsWith('vpc-l-ipv6')),
      false,
    );
  });

  it('never holds back a Subnet', () => {
    assert.equal(firstCopyWaits({ ...key, kind: 'Subnet' }, context([seed]), 'ns-u', depsWith()), false);
  });

  it('is woken by the judgement and by the Subnet it names, status-only changes though they are', () => {
    assert.equal(
      sourceChanged({ type: 'MODIFIED', object: context([judgedReady]), previous: context([seed]) }),
      true,
    );
    assert.equal(
      sourceChanged({
        type: 'MODIFIED',
        object: context([judgedReady], 'vpc-l-ipv6'),
        previous: context([judgedReady]),
      }),
      true,
    );
    assert.equal(
      sourceChanged({
        type: 'MODIFIED',
        object: context([{ ...judgedReady, status: 'False', reason: 'NotReady' }], 'vpc-l-ipv6'),
        previous: context([judgedReady], 'vpc-l-ipv6'),
      }),
      false,
    );
  });
});
