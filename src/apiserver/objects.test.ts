import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nowRfc3339 } from './objects.ts';

describe('nowRfc3339', () => {
  it('formats each instant to its second, also when seconds repeat, go back or cross a day', () => {
    const instants = [
      '2026-12-03T16:53:41.001Z',
      '2026-12-03T16:53:41.999Z',
      '2026-12-03T16:53:42.000Z',
      '2026-12-03T16:53:41.500Z',
      '2026-12-03T23:59:59.999Z',
      '2026-12-04T00:00:00.000Z',
      '1969-12-31T23:59:59.500Z',
    ];
    for (const instant of instants) {
      assert.equal(nowRfc3339(new Date(instant)), `${instant.slice(0, 19)}Z`);
    }
  });

  it('refuses an invalid date', () => {
    assert.throws(() => nowRfc3339(new Date(NaN)), RangeError);
  });
});
