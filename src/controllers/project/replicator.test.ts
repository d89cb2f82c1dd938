import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyOfCopy } from './replicator.ts';

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
