import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forEachConcurrently } from './for-each-concurrently.ts';

/** A call that resolves when the test says so, by item. */
function gate() {
  const release = new Map<number, () => void>();
  const started: number[] = [];
  const fn = (item: number) =>
    new Promise<void>((resolve) => {
      started.push(item);
      release.set(item, resolve);
    });
  return { started, fn, release: (item: number) => release.get(item)!() };
}

describe('forEachConcurrently', () => {
  it('runs every item once, never more than the limit at a time, starting them in order', async () => {
    const { started, fn, release } = gate();
    const done = forEachConcurrently([0, 1, 2, 3, 4], 2, fn);
    await Promise.resolve();
    assert.deepEqual(started, [0, 1]);
    release(1);
    await new Promise(setImmediate);
    assert.deepEqual(started, [0, 1, 2]);
    for (const item of [0, 2, 3, 4]) {
      await new Promise(setImmediate);
      release(item);
    }
    await done;
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
  });

  it('starts nothing after a failure and rejects with it once the calls in flight have settled', async () => {
    const { started, fn, release } = gate();
    let settled = false;
    const failing = (item: number) => (item === 1 ? Promise.reject(new Error('item 1 failed')) : fn(item));
    const done = forEachConcurrently([0, 1, 2, 3], 2, failing).finally(() => (settled = true));
    await new Promise(setImmediate);
    assert.deepEqual(started, [0], 'item 2 was not started after item 1 failed');
    assert.equal(settled, false, 'item 0 is still in flight');
    release(0);
    await assert.rejects(done, { message: 'item 1 failed' });
    assert.deepEqual(started, [0]);
  });

  it('resolves at once for no items and refuses a limit below one', async () => {
    await forEachConcurrently([], 4, () => Promise.reject(new Error('never called')));
    await assert.rejects(
      forEachConcurrently([1], 0, async () => {}),
      {
        message: 'limit must be a positive integer, got 0',
      },
    );
  });
});
