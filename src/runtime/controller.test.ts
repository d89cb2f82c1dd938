import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from './clock.ts';
import { statusErrorFrom } from '../client/errors.ts';
import {
  after,
  Controller,
  done,
  FRESH_READ_ATTEMPTS,
  TerminalError,
  type ControllerOptions,
  type Outcome,
  type StalePolicy,
} from './controller.ts';
import { rootLogger } from './logging.ts';
import { RuntimeMetrics } from './metrics.ts';

interface HubKey {
  plane: string;
  namespace: string;
  name: string;
}

const keyA: HubKey = { plane: 'hub', namespace: 'ns', name: 'a' };
const keyB: HubKey = { plane: 'hub', namespace: 'ns', name: 'b' };

type Reconcile = ControllerOptions<HubKey>['reconcile'];

function setup(clock: FakeClock, reconcile: Reconcile, workers = 1, onStale?: StalePolicy) {
  const metrics = new RuntimeMetrics();
  const lines: Record<string, any>[] = [];
  const log = rootLogger({
    level: 'debug',
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  const controller = new Controller<HubKey>({
    name: 'presence',
    reconcile,
    toString: (key) => `${key.plane}/${key.namespace}/${key.name}`,
    fromString: (text) => {
      const [plane, namespace, name] = text.split('/');
      if (!name) throw new Error(`not a hub key: ${text}`);
      return { plane, namespace, name };
    },
    planeOf: (key) => key.plane,
    workers,
    clock,
    log,
    metrics,
    onStale,
  });
  return { metrics, lines, controller };
}

/** Records when each key is reconciled and answers with the next of `outcomes` (then success). */
function scripted(clock: FakeClock, outcomes: (Outcome | Error)[] = []) {
  const calls: string[] = [];
  const reconcile: Reconcile = async (key) => {
    calls.push(`${key.name}@${clock.now()}`);
    const outcome = outcomes.shift();
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
  return { calls, reconcile };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** The value of one sample of `name` (a counter, or a histogram's _count/_sum) with `labels`. */
async function sample(
  metrics: RuntimeMetrics,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const family = name.replace(/_(count|sum)$/, '');
  const metric = await metrics.registry.getSingleMetric(family)!.get();
  return metric.values.find(
    (v) =>
      ((v as { metricName?: string }).metricName ?? family) === name &&
      Object.entries(labels).every(([label, value]) => v.labels[label] === value),
  )?.value;
}

describe('controller retry policy', () => {
  it('retries an error after the backoff, 5 then 10 then 20 ms', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock, [new Error('e1'), new Error('e2'), new Error('e3')]);
    const { controller } = setup(clock, reconcile);
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(1000);
    assert.deepEqual(calls, ['a@0', 'a@5', 'a@15', 'a@35']);
    await controller.stop();
  });

  it('forgets the backoff on success: the next error is retried after 5 ms again', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock, [new Error('e1'), new Error('e2'), done(), new Error('e3')]);
    const { controller } = setup(clock, reconcile);
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(100);
    assert.deepEqual(calls, ['a@0', 'a@5', 'a@15']);
    controller.enqueue(keyA);
    await clock.advance(100);
    assert.deepEqual(calls, ['a@0', 'a@5', 'a@15', 'a@100', 'a@105']);
    await controller.stop();
  });

  it('reconciles again after requeueAfterMs, with the backoff forgotten', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock, [new Error('e1'), after(30_000), new Error('e2')]);
    const { controller } = setup(clock, reconcile);
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(29_000);
    assert.deepEqual(calls, ['a@0', 'a@5']);
    await clock.advance(1_005);
    assert.deepEqual(calls, ['a@0', 'a@5', 'a@30005']);
    await clock.advance(5);
    assert.deepEqual(calls, ['a@0', 'a@5', 'a@30005', 'a@30010']);
    await controller.stop();
  });

  it('reconciles a key enqueued before its requeueAfterMs at once, and not again at the old time', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock, [after(1000)]);
    const { controller } = setup(clock, reconcile);
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(200);
    controller.enqueue(keyA);
    await clock.advance(5000);
    assert.deepEqual(calls, ['a@0', 'a@200']);
    await controller.stop();
  });

  it('does not retry a TerminalError, and logs it with controller, plane and key', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock, [new TerminalError('spec.cidr is not a CIDR')]);
    const { controller, lines } = setup(clock, reconcile);
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(2_000_000);
    assert.deepEqual(calls, ['a@0']);
    const failure = lines.find((line) => line.level === 50);
    assert.equal(failure?.controller, 'presence');
    assert.equal(failure?.plane, 'hub');
    assert.equal(failure?.key, 'hub/ns/a');
    assert.equal(failure?.err?.message, 'spec.cidr is not a CIDR');
    await controller.stop();
  });

  it('reconciles a TerminalError key again when it is enqueued again, from a fresh backoff', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock, [
      new Error('e1'),
      new TerminalError('bad'),
      new Error('e2'),
    ]);
    const { controller } = setup(clock, reconcile);
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(100);
    controller.enqueue(keyA);
    await clock.advance(100);
    assert.deepEqual(calls, ['a@0', 'a@5', 'a@100', 'a@105']);
    await controller.stop();
  });

  it('treats a key string that does not parse as terminal', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock);
    const { controller, metrics } = setup(clock, reconcile);
    controller.enqueue({ plane: 'hub', namespace: '', name: '' });
    await controller.start();
    await clock.advance(1000);
    assert.deepEqual(calls, []);
    assert.equal(await sample(metrics, 'controller_runtime_terminal_reconcile_errors_total', {}), 1);
    await controller.stop();
  });
});

describe('controller workers', () => {
  it('never reconciles one key twice at once; a key enqueued meanwhile runs once more after', async () => {
    const clock = new FakeClock();
    const release = deferred();
    let running = 0;
    let most = 0;
    const calls: string[] = [];
    const { controller } = setup(
      clock,
      async (key) => {
        calls.push(key.name);
        running++;
        most = Math.max(most, running);
        await release.promise;
        running--;
      },
      4,
    );
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(0);
    controller.enqueue(keyA);
    controller.enqueue(keyA);
    await clock.advance(10);
    assert.deepEqual(calls, ['a']);
    release.resolve();
    await clock.advance(10);
    assert.deepEqual(calls, ['a', 'a']);
    assert.equal(most, 1);
    await controller.stop();
  });

  it('reconciles different keys concurrently, up to the number of workers', async () => {
    const clock = new FakeClock();
    const release = deferred();
    const running = new Set<string>();
    const { controller } = setup(
      clock,
      async (key) => {
        running.add(key.name);
        await release.promise;
      },
      2,
    );
    controller.enqueue(keyA);
    controller.enqueue(keyB);
    controller.enqueue({ ...keyA, name: 'c' });
    await controller.start();
    await clock.advance(0);
    assert.deepEqual([...running], ['a', 'b']);
    release.resolve();
    await clock.advance(0);
    assert.deepEqual([...running], ['a', 'b', 'c']);
    await controller.stop();
  });

  it('holds keys enqueued before start until start', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock);
    const { controller } = setup(clock, reconcile);
    controller.enqueue(keyA);
    controller.enqueue(keyB, 50);
    await clock.advance(100);
    assert.deepEqual(calls, []);
    await controller.start();
    await clock.advance(0);
    assert.deepEqual(calls, ['a@100', 'b@100']);
    await controller.stop();
  });

  it('stop waits for the reconcile in flight, then takes no more keys and unsubscribes its triggers', async () => {
    const clock = new FakeClock();
    const release = deferred();
    const calls: string[] = [];
    const { controller } = setup(clock, async (key) => {
      calls.push(key.name);
      await release.promise;
    });
    let subscribed = true;
    controller.watch((enqueue) => {
      enqueue(keyA);
      return () => (subscribed = false);
    });
    controller.enqueue(keyB);
    await controller.start();
    await clock.advance(0);
    let stopped = false;
    const stopping = controller.stop().then(() => (stopped = true));
    await clock.advance(0);
    assert.equal(stopped, false);
    assert.equal(subscribed, false);
    release.resolve();
    await stopping;
    controller.enqueue(keyA);
    await clock.advance(1000);
    assert.deepEqual(calls, ['a']);
  });

  it('refuses to start twice', async () => {
    const clock = new FakeClock();
    const { controller } = setup(clock, async () => {});
    await controller.start();
    await assert.rejects(controller.start(), /already started/);
    await controller.stop();
  });
});

describe('controller watch', () => {
  it('enqueues what a trigger delivers until it is unsubscribed', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock);
    const { controller } = setup(clock, reconcile);
    let deliver: ((key: HubKey) => void) | undefined;
    let unsubscribed = 0;
    const unsubscribe = controller.watch((enqueue) => {
      deliver = enqueue;
      return () => unsubscribed++;
    });
    await controller.start();
    deliver!(keyA);
    await clock.advance(0);
    unsubscribe();
    unsubscribe();
    assert.equal(unsubscribed, 1);
    assert.deepEqual(calls, ['a@0']);
    await controller.stop();
    assert.equal(unsubscribed, 1, 'stop does not unsubscribe a trigger twice');
  });
});

describe('controller metrics and logs', () => {
  it('reports its workers from start until stop, and a second stop counts none twice', async () => {
    const clock = new FakeClock();
    const { controller, metrics } = setup(clock, async () => undefined, 3);
    const labels = { controller: 'presence' };
    assert.equal(await sample(metrics, 'controller_runtime_max_concurrent_reconciles', labels), undefined);
    await controller.start();
    assert.equal(await sample(metrics, 'controller_runtime_max_concurrent_reconciles', labels), 3);
    await controller.stop();
    await controller.stop();
    assert.equal(await sample(metrics, 'controller_runtime_max_concurrent_reconciles', labels), 0);
  });

  it('counts reconciles by result, errors, and reconcile time', async () => {
    const clock = new FakeClock();
    const outcomes: (Outcome | Error)[] = [done(), after(10_000), new Error('e'), new TerminalError('t')];
    const { controller, metrics } = setup(clock, async () => {
      await clock.sleep(250);
      const outcome = outcomes.shift();
      if (outcome instanceof Error) throw outcome;
      return outcome;
    });
    controller.enqueue(keyA);
    controller.enqueue(keyB);
    await controller.start();
    // One worker, 250 ms each: a succeeds; b asks for 10 s, fails at 10.5 s, fails terminally 5 ms later.
    await clock.advance(20_000);
    const labels = { controller: 'presence' };
    assert.equal(
      await sample(metrics, 'controller_runtime_reconcile_total', { ...labels, result: 'success' }),
      1,
    );
    assert.equal(
      await sample(metrics, 'controller_runtime_reconcile_total', { ...labels, result: 'requeue_after' }),
      1,
    );
    assert.equal(
      await sample(metrics, 'controller_runtime_reconcile_total', { ...labels, result: 'error' }),
      2,
    );
    assert.equal(await sample(metrics, 'controller_runtime_reconcile_errors_total', labels), 2);
    assert.equal(await sample(metrics, 'controller_runtime_terminal_reconcile_errors_total', labels), 1);
    assert.equal(await sample(metrics, 'controller_runtime_reconcile_time_seconds_count', labels), 4);
    assert.equal(await sample(metrics, 'controller_runtime_reconcile_time_seconds_sum', labels), 1);
    assert.equal(await sample(metrics, 'workqueue_retries_total', { name: 'presence' }), 1);
    assert.equal(await sample(metrics, 'workqueue_adds_total', { name: 'presence' }), 4);
    assert.equal(await sample(metrics, 'workqueue_depth', { name: 'presence' }), 0);
    const text = await metrics.text();
    assert.match(text, /controller_runtime_reconcile_total\{controller="presence",result="success"\} 1/);
    await controller.stop();
  });

  it('logs every reconcile, and gives the reconciler a logger, with controller, plane and key', async () => {
    const clock = new FakeClock();
    let failed = false;
    const { controller, lines } = setup(clock, async (_key, log) => {
      log.info('reading bindings');
      if (failed) return;
      failed = true;
      throw new Error('e');
    });
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(100);
    const reconcileLines = lines.filter((line) => line.key !== undefined);
    assert.deepEqual(
      reconcileLines.map((line) => line.msg),
      ['reading bindings', 'reconcile failed; retrying with backoff', 'reading bindings', 'reconciled'],
    );
    for (const line of reconcileLines) {
      assert.equal(line.controller, 'presence');
      assert.equal(line.plane, 'hub');
      assert.equal(line.key, 'hub/ns/a');
    }
    await controller.stop();
  });
});

describe('a stale write', () => {
  const conflict = () => statusErrorFrom(409, { reason: 'Conflict', message: 'stale' });
  const gone = () => statusErrorFrom(404, { reason: 'NotFound', message: 'gone' });

  it('ends the reconcile quietly on a conflict or a vanished object', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock, [conflict(), gone()]);
    const { controller, metrics, lines } = setup(clock, reconcile);
    controller.enqueue(keyA);
    controller.enqueue(keyB);
    await controller.start();
    await clock.advance(5000);
    assert.deepEqual(calls, ['a@0', 'b@0'], 'the watch of the newer state, not the queue, wakes the keys');
    const labels = { controller: 'presence' };
    assert.equal(
      await sample(metrics, 'controller_runtime_reconcile_total', { ...labels, result: 'stale' }),
      2,
    );
    assert.equal(await sample(metrics, 'controller_runtime_reconcile_errors_total', labels), undefined);
    assert.ok(
      lines.every((line) => line.level < 50),
      'nothing is logged as an error',
    );
    controller.enqueue(keyA);
    await clock.advance(10);
    assert.deepEqual(calls, ['a@0', 'b@0', 'a@5000'], 'an event wakes the key again, at once');
    await controller.stop();
  });

  it('throws every other error', async () => {
    const clock = new FakeClock();
    const exists = statusErrorFrom(409, { reason: 'AlreadyExists', message: 'taken' });
    const { calls, reconcile } = scripted(clock, [exists, new Error('boom')]);
    const { controller, metrics } = setup(clock, reconcile);
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(100);
    assert.deepEqual(calls, ['a@0', 'a@5', 'a@15'], 'AlreadyExists and any other error back off');
    assert.equal(
      await sample(metrics, 'controller_runtime_reconcile_errors_total', { controller: 'presence' }),
      2,
    );
    await controller.stop();
  });

  it('is reconciled again at once when the controller says onStale: requeue', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock, [conflict(), conflict()]);
    const { controller } = setup(clock, reconcile, 1, 'requeue');
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(100);
    assert.deepEqual(calls, ['a@0', 'a@0', 'a@0']);
    await controller.stop();
  });

  it('is reconciled again at once, told to read fresh, when the controller says onStale: reread; the backoff follows the last pass', async () => {
    const clock = new FakeClock();
    const passes: string[] = [];
    const outcomes: (Outcome | Error)[] = [conflict(), gone(), conflict(), conflict(), done()];
    const reconcile: Reconcile = async (key, _log, pass) => {
      passes.push(`${key.name}@${clock.now()}${pass.fresh ? ' fresh' : ''}`);
      const outcome = outcomes.shift();
      if (outcome instanceof Error) throw outcome;
      return outcome;
    };
    const { controller, metrics } = setup(clock, reconcile, 1, 'reread');
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(100);
    assert.equal(FRESH_READ_ATTEMPTS, 3);
    assert.deepEqual(passes, ['a@0', 'a@0 fresh', 'a@0 fresh', 'a@5', 'a@5 fresh']);
    const labels = { controller: 'presence' };
    assert.equal(
      await sample(metrics, 'controller_runtime_reconcile_total', { ...labels, result: 'stale' }),
      1,
    );
    assert.equal(
      await sample(metrics, 'controller_runtime_reconcile_total', { ...labels, result: 'success' }),
      1,
    );
    await controller.stop();
  });

  it('is retried after the backoff when the controller says onStale: backoff', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock, [conflict(), gone()]);
    const { controller } = setup(clock, reconcile, 1, 'backoff');
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(100);
    assert.deepEqual(calls, ['a@0', 'a@5', 'a@15']);
    await controller.stop();
  });
});

describe('requeue at once', () => {
  it('reconciles the key again at once, with the backoff forgotten', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = scripted(clock, [new Error('e1'), { kind: 'requeue' }, new Error('e2')]);
    const { controller } = setup(clock, reconcile);
    controller.enqueue(keyA);
    await controller.start();
    await clock.advance(100);
    assert.deepEqual(calls, ['a@0', 'a@5', 'a@5', 'a@10']);
    await controller.stop();
  });
});
