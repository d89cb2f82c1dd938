import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition } from '../apis/common/condition.ts';
import { conditionTime, findCondition, isConditionTrue, readyFollowing, setCondition } from './conditions.ts';

const T0 = Date.parse('2025-01-01T00:00:00Z');
const T1 = T0 + 5_000;

const ready = (status: Condition['status'], message: string, at = T0, generation = 1): Condition => ({
  type: 'Ready',
  status,
  reason: status === 'True' ? 'Ready' : 'RangeOccupied',
  message,
  lastTransitionTime: conditionTime(at),
  observedGeneration: generation,
});

describe('setting a condition', () => {
  it('writes timestamps as whole seconds in UTC', () => {
    assert.equal(conditionTime(Date.parse('2025-01-01T00:00:00.789Z')), '2025-01-01T00:00:00Z');
  });

  it('formats each second anew, whatever the order of the times it is given', () => {
    const times = [
      '2025-01-01T00:00:00.001Z',
      '2025-01-01T00:00:00.999Z',
      '2025-01-01T00:00:01.000Z',
      '2024-12-31T23:59:59.999Z',
      '1969-12-31T23:59:59.500Z',
      '1970-01-01T00:00:00.000Z',
      '2025-01-01T00:00:00.500Z',
    ];
    for (const time of times) {
      const now = Date.parse(time);
      assert.equal(conditionTime(now), new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'), time);
    }
    assert.throws(() => conditionTime(NaN), RangeError);
  });

  it('returns the same list when nothing the rule compares differs', () => {
    const list = [ready('True', 'a')];
    assert.equal(
      setCondition(list, { type: 'Ready', status: 'True', reason: 'Ready', message: 'a' }, 1, T1),
      list,
    );
  });

  it('keeps the transition time when only the message or the generation changes', () => {
    const list = [ready('True', 'a')];
    const next = setCondition(list, { type: 'Ready', status: 'True', reason: 'Ready', message: 'b' }, 2, T1);
    assert.notEqual(next, list);
    assert.deepEqual(next, [{ ...ready('True', 'b'), observedGeneration: 2 }]);
  });

  it('moves the transition time when the status changes', () => {
    const next = setCondition(
      [ready('True', 'a')],
      { type: 'Ready', status: 'False', reason: 'RangeOccupied', message: 'busy' },
      1,
      T1,
    );
    assert.deepEqual(next, [ready('False', 'busy', T1)]);
  });

  it('appends a new condition at now and leaves the others alone', () => {
    const seeded: Condition = {
      type: 'Programmed',
      status: 'Unknown',
      reason: 'Pending',
      message: 'Waiting for controller',
      lastTransitionTime: '1970-01-01T00:00:00Z',
    };
    const next = setCondition(
      [seeded],
      { type: 'Ready', status: 'True', reason: 'Ready', message: 'a' },
      1,
      T0,
    );
    assert.deepEqual(next, [seeded, ready('True', 'a')]);
    assert.equal(findCondition(next, 'Programmed'), seeded);
    assert.equal(isConditionTrue(next, 'Ready'), true);
    assert.equal(isConditionTrue(next, 'Programmed'), false);
  });
});

describe('Ready following an input condition', () => {
  it('is True with the given message while the input is absent', () => {
    assert.deepEqual(readyFollowing(undefined, 'fine'), {
      type: 'Ready',
      status: 'True',
      reason: 'Ready',
      message: 'fine',
    });
  });

  it("takes the input's message, and its status and reason unless it is True", () => {
    const allocated: Condition = {
      ...ready('True', 'addressed'),
      type: 'IPAMAllocated',
      reason: 'Allocated',
    };
    assert.deepEqual(readyFollowing(allocated, 'unused'), {
      type: 'Ready',
      status: 'True',
      reason: 'Ready',
      message: 'addressed',
    });
    const refused: Condition = {
      ...ready('False', 'exhausted'),
      type: 'IPAMAllocated',
      reason: 'AddressPoolExhausted',
    };
    assert.deepEqual(readyFollowing(refused, 'unused'), {
      type: 'Ready',
      status: 'False',
      reason: 'AddressPoolExhausted',
      message: 'exhausted',
    });
  });
});
