import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from './clock.ts';
import { RuntimeMetrics } from './metrics.ts';
import { WorkQueue } from './workqueue.ts';

function setup() {
  const clock = new FakeClock();
  const metrics = new RuntimeMetrics();
  const queue = new WorkQueue({ name: 'test', clock, metrics });
  return { clock, metrics, queue };
}

/** Resolves to the key `get` hands out, or 'pending' when it would wait. */
async function poll(queue: WorkQueue, clock: FakeClock): Promise<string | undefined> {
  let got: string | undefined = 'pending';
  void queue.get().then((key) => (got = key));
  await clock.advance(0);
  return got;
}

/** Records every key handed out by a getter loop that calls `done` at once, with the time. */
function drain(queue: WorkQueue, clock: FakeClock): string[] {
  const seen: string[] = [];
  void (async () => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      seen.push(`${key}@${clock.now()}`);
      queue.done(key);
    }
  })();
  return seen;
}

describe('workqueue', () => {
  it('holds a key added twice while queued only once', async () => {
    const { clock, queue } = setup();
    queue.add('a');
    queue.add('a');
    assert.equal(queue.len(), 1);
    assert.equal(await queue.get(), 'a');
    assert.equal(await poll(queue, clock), 'pending');
  });

  it('hands out keys in the order they became ready', async () => {
    const { queue } = setup();
    for (const key of ['b', 'a', 'c']) queue.add(key);
    assert.deepEqual([await queue.get(), await queue.get(), await queue.get()], ['b', 'a', 'c']);
  });

  it('never hands out a key being processed; one added meanwhile comes back after done', async () => {
    const { clock, queue } = setup();
    queue.add('a');
    const first = await queue.get();
    queue.add('a');
    queue.add('a');
    assert.equal(queue.len(), 0);
    const second = queue.get();
    let handedOut = false;
    void second.then(() => (handedOut = true));
    await clock.advance(0);
    assert.equal(handedOut, false, 'a second worker must not get a while it is processed');
    queue.done(first!);
    assert.equal(await second, 'a');
    queue.done('a');
    assert.equal(await poll(queue, clock), 'pending', 'the two adds during processing make one more run');
  });

  it('serves a waiting get as soon as a key is added', async () => {
    const { queue } = setup();
    const waiting = queue.get();
    queue.add('a');
    assert.equal(await waiting, 'a');
  });

  it('delays addAfter until its time', async () => {
    const { clock, queue } = setup();
    const seen = drain(queue, clock);
    queue.addAfter('a', 100);
    await clock.advance(99);
    assert.deepEqual(seen, []);
    await clock.advance(1);
    assert.deepEqual(seen, ['a@100']);
  });

  it('keeps the earliest schedule when a key is scheduled twice, in either order', async () => {
    const { clock, queue } = setup();
    const seen = drain(queue, clock);
    queue.addAfter('a', 100);
    queue.addAfter('a', 50);
    queue.addAfter('b', 50);
    queue.addAfter('b', 100);
    await clock.advance(1000);
    assert.deepEqual(seen, ['a@50', 'b@50']);
    assert.equal(clock.pending(), 0);
  });

  it('makes a scheduled key ready now when it is added, dropping the schedule', async () => {
    const { clock, queue } = setup();
    const seen = drain(queue, clock);
    queue.addAfter('a', 100);
    queue.add('a');
    await clock.advance(1000);
    assert.deepEqual(seen, ['a@0']);
  });

  it('ignores a schedule for a key that is already ready', async () => {
    const { clock, queue } = setup();
    queue.add('a');
    queue.addAfter('a', 100);
    assert.equal(queue.waiting(), 0);
    assert.equal(clock.pending(), 0);
  });

  it('schedules consecutive rate-limited adds of a key 5, 10, 20, 40 ms out, and 5 ms again after forget', async () => {
    const { clock, queue } = setup();
    const seen = drain(queue, clock);
    for (const expected of [5, 10, 20, 40]) {
      const start = clock.now();
      queue.addRateLimited('a');
      await clock.advance(expected - 1);
      assert.equal(seen.length, [5, 10, 20, 40].indexOf(expected), `not before ${expected} ms`);
      await clock.advance(1);
      assert.equal(seen.at(-1), `a@${start + expected}`);
    }
    assert.equal(queue.numRequeues('a'), 4);
    queue.forget('a');
    assert.equal(queue.numRequeues('a'), 0);
    const start = clock.now();
    queue.addRateLimited('a');
    await clock.advance(5);
    assert.equal(seen.at(-1), `a@${start + 5}`);
  });

  it('spreads rate-limited adds beyond a burst of 100 at 10 per second', async () => {
    const { clock, queue } = setup();
    const seen = drain(queue, clock);
    for (let i = 0; i < 102; i++) queue.addRateLimited(`k${i}`);
    await clock.advance(5);
    assert.equal(seen.length, 100);
    await clock.advance(94);
    assert.equal(seen.length, 100);
    await clock.advance(1);
    assert.deepEqual(seen.slice(100), ['k100@100']);
    await clock.advance(100);
    assert.deepEqual(seen.slice(101), ['k101@200']);
  });

  it('on shutdown resolves waiting gets with undefined, cancels schedules and ignores later adds', async () => {
    const { clock, queue } = setup();
    const waiting = [queue.get(), queue.get()];
    queue.addAfter('a', 100);
    queue.shutdown();
    assert.deepEqual(await Promise.all(waiting), [undefined, undefined]);
    assert.equal(clock.pending(), 0);
    queue.add('b');
    assert.equal(await queue.get(), undefined);
  });

  it('counts depth, adds, retries and time in queue under the queue name', async () => {
    const { clock, queue, metrics } = setup();
    queue.add('a');
    queue.add('a');
    queue.add('b');
    assert.equal(await value(metrics, 'workqueue_depth'), 2);
    await clock.advance(2000);
    await queue.get();
    assert.equal(await value(metrics, 'workqueue_depth'), 1);
    assert.equal(await value(metrics, 'workqueue_adds_total'), 2);
    queue.addRateLimited('a');
    assert.equal(await value(metrics, 'workqueue_retries_total'), 1);
    const duration = await metrics.registry.getSingleMetric('workqueue_queue_duration_seconds')!.get();
    const sum = duration.values.find(
      (v) => (v as { metricName?: string }).metricName === 'workqueue_queue_duration_seconds_sum',
    );
    assert.equal(sum?.value, 2);
    assert.deepEqual(sum?.labels, { name: 'test' });
  });
});

async function value(metrics: RuntimeMetrics, name: string): Promise<number | undefined> {
  const metric = await metrics.registry.getSingleMetric(name)!.get();
  return metric.values.find((v) => v.labels.name === 'test')?.value;
}
