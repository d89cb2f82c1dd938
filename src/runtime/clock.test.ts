import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock, systemClock } from './clock.ts';

describe('fake clock', () => {
  it('starts at the given time and moves only when advanced', async () => {
    const clock = new FakeClock(1000);
    assert.equal(clock.now(), 1000);
    await clock.advance(250);
    assert.equal(clock.now(), 1250);
  });

  it('fires due timers in order of due time, ties in order of scheduling, each at its own time', async () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`c@${clock.now()}`), 30);
    clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimeout(() => fired.push(`b@${clock.now()}`), 10);
    clock.setTimeout(() => fired.push(`d@${clock.now()}`), 31);
    await clock.advance(30);
    assert.deepEqual(fired, ['a@10', 'b@10', 'c@30']);
    assert.equal(clock.pending(), 1);
  });

  it('fires a timer scheduled during the advance when it falls within the advanced span', async () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    clock.setTimeout(() => clock.setTimeout(() => fired.push(clock.now()), 5), 10);
    await clock.advance(20);
    assert.deepEqual(fired, [15]);
  });

  it('lets the promise chain a timer starts run before the next timer fires', async () => {
    const clock = new FakeClock();
    const order: string[] = [];
    void clock.sleep(10).then(async () => {
      await Promise.resolve();
      order.push('after first sleep');
    });
    clock.setTimeout(() => order.push('second timer'), 11);
    await clock.advance(20);
    assert.deepEqual(order, ['after first sleep', 'second timer']);
  });

  it('never fires a cleared timer', async () => {
    const clock = new FakeClock();
    let fired = false;
    const handle = clock.setTimeout(() => (fired = true), 10);
    clock.clearTimeout(handle);
    await clock.advance(100);
    assert.equal(fired, false);
    assert.equal(clock.pending(), 0);
  });

  it('rejects a sleep with the signal reason on abort and cancels its timer', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(1000, controller.signal);
    controller.abort(new Error('shutting down'));
    await assert.rejects(sleeping, /shutting down/);
    assert.equal(clock.pending(), 0);
  });

  it('rejects a sleep at once when the signal is already aborted', async () => {
    const clock = new FakeClock();
    await assert.rejects(clock.sleep(10, AbortSignal.abort(new Error('gone'))), /gone/);
    assert.equal(clock.pending(), 0);
  });
});

describe('system clock', () => {
  it('reads wall-clock time', () => {
    assert.ok(Math.abs(systemClock.now() - Date.now()) < 1000);
  });

  it('rejects a sleep at once when the signal is already aborted', async () => {
    await assert.rejects(systemClock.sleep(60_000, AbortSignal.abort(new Error('gone'))), /gone/);
  });
});
