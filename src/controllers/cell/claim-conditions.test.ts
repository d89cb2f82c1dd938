import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition } from '../../apis/common/condition.ts';
import { boundConditions, derivedReady, refusedConditions } from './claim-conditions.ts';

const cond = (type: string, status: Condition['status'], reason = 'R'): Condition => ({
  type,
  status,
  reason,
  message: 'm',
  lastTransitionTime: '1970-01-01T00:00:00Z',
});

describe('claim conditions', () => {
  it('derives Ready from the first input that is not True', () => {
    assert.deepEqual(
      derivedReady([cond('Bound', 'True'), cond('Allocated', 'True'), cond('Prepared', 'Unknown')]),
      {
        type: 'Ready',
        status: 'Unknown',
        reason: 'NotPrepared',
        message: 'Waiting for Prepared',
      },
    );
    assert.equal(derivedReady([cond('Bound', 'True'), cond('Allocated', 'False')]).reason, 'NotAllocated');
    assert.equal(derivedReady([cond('Bound', 'True'), cond('Allocated', 'False')]).status, 'False');
    const all = ['Bound', 'Allocated', 'Prepared', 'Programmed'].map((t) => cond(t, 'True'));
    assert.deepEqual(derivedReady(all), {
      type: 'Ready',
      status: 'True',
      reason: 'Ready',
      message: 'The interface is bound, addressed, prepared, and programmed',
    });
  });

  it('a refusal leaves Bound and Allocated alone once bound, and never touches Programmed', () => {
    const held = [
      cond('Bound', 'True'),
      cond('Allocated', 'True'),
      cond('Prepared', 'True'),
      cond('Programmed', 'True'),
    ];
    const refused = refusedConditions(
      held,
      { reason: 'AmbiguousLocationIdentity', message: 'x' },
      true,
      1,
      0,
    );
    assert.equal(refused.find((c) => c.type === 'Bound')?.status, 'True');
    assert.equal(refused.find((c) => c.type === 'Programmed')?.status, 'True');
    assert.equal(refused.find((c) => c.type === 'Ready')?.reason, 'AmbiguousLocationIdentity');
    const unbound = refusedConditions([], { reason: 'ProjectUnresolved', message: 'y' }, false, 1, 0);
    assert.deepEqual(
      unbound.map((c) => [c.type, c.status, c.reason]),
      [
        ['Bound', 'False', 'ProjectUnresolved'],
        ['Allocated', 'False', 'ProjectUnresolved'],
        ['Prepared', 'Unknown', 'Pending'],
        ['Programmed', 'Unknown', 'Pending'],
        ['Ready', 'False', 'ProjectUnresolved'],
      ],
    );
  });

  it('a gateway refusal replaces the derived Ready but keeps Bound and Allocated True', () => {
    const conditions = boundConditions([], 'i', undefined, 'no gateway', 1, 0);
    assert.equal(conditions.find((c) => c.type === 'Bound')?.status, 'True');
    assert.equal(conditions.find((c) => c.type === 'Allocated')?.status, 'True');
    assert.deepEqual(
      [
        conditions.find((c) => c.type === 'Ready')?.reason,
        conditions.find((c) => c.type === 'Ready')?.message,
      ],
      ['SubnetGatewayUnusable', 'no gateway'],
    );
  });
});
