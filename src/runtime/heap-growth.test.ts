import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HEAP_GROWING_PERCENT, heapGrowthFlag } from './heap-growth.ts';

describe('heap growth', () => {
  it('sets a fixed growth of the old generation when node was given none', () => {
    assert.equal(heapGrowthFlag([]), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    assert.equal(
      heapGrowthFlag(['--enable-source-maps', '--max-semi-space-size=32']),
      `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
    );
  });

  it('keeps the growth node was started with, in either spelling of the flag', () => {
    for (const given of [
      ['--heap-growing-percent=80'],
      ['--heap_growing_percent=10'],
      ['--heap-growing-percent', '20'],
    ])
      assert.equal(heapGrowthFlag(given), undefined, given.join(' '));
    assert.equal(
      heapGrowthFlag(['--heap-growing-percentage-of-nothing']),
      `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
    );
  });
});
