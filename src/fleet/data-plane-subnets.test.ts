import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Subnet } from '../apis/networking/v1alpha/subnet.ts';
import { programmedCondition, sourceOf } from './data-plane-subnets.ts';

describe('simulated data plane: subnets', () => {
  it('a cell copy names its source by the upstream labels', () => {
    const copy = {
      metadata: {
        name: 'default-l-ipv6',
        namespace: 'ns-u',
        labels: {
          'meta.datumapis.com/upstream-cluster-name': 'cluster-demo',
          'meta.datumapis.com/upstream-namespace': 'default',
          'meta.datumapis.com/upstream-name': 'default-l-ipv6',
        },
      },
    } as unknown as Subnet;
    assert.deepEqual(sourceOf(copy), { project: 'demo', namespace: 'default', name: 'default-l-ipv6' });
    assert.equal(sourceOf({ metadata: { name: 'x', labels: {} } } as unknown as Subnet), undefined);
  });

  it('Programmed is True with the count of holding cells, or Unknown Pending naming the location', () => {
    assert.deepEqual(programmedCondition('l', 2), {
      type: 'Programmed',
      status: 'True',
      reason: 'Programmed',
      message: 'The subnet is programmed in 2 cells',
    });
    assert.deepEqual(programmedCondition('l', 0), {
      type: 'Programmed',
      status: 'Unknown',
      reason: 'Pending',
      message: 'No cell serving l holds the subnet yet',
    });
  });
});
