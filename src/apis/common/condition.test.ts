import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededStatus } from './condition.ts';

describe('seeded status', () => {
  it('seeds each listed type Unknown/Pending/"Waiting for controller" at the epoch, in order', () => {
    assert.deepEqual(seededStatus(['Allocated', 'Ready']), {
      conditions: [
        {
          type: 'Allocated',
          status: 'Unknown',
          reason: 'Pending',
          message: 'Waiting for controller',
          lastTransitionTime: '1970-01-01T00:00:00Z',
        },
        {
          type: 'Ready',
          status: 'Unknown',
          reason: 'Pending',
          message: 'Waiting for controller',
          lastTransitionTime: '1970-01-01T00:00:00Z',
        },
      ],
    });
  });
});
