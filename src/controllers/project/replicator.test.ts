import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HUB_REPLICATOR_FINALIZER } from '../../apis/networking/v1alpha/network-context.ts';
import { keyOfCopy, sourceChanged } from './replicator.ts';

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
