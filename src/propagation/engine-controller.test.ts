import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { ConflictError } from '../client/errors.ts';
import { FakeClock } from '../runtime/clock.ts';
import { RuntimeMetrics } from '../runtime/metrics.ts';
import type { EngineContext } from './engine-context.ts';
import { engineController, nameKeys } from './engine-controller.ts';

const conflict = () =>
  new ConflictError(409, {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    reason: 'Conflict',
    code: 409,
    message: 'the object has been modified',
  });

/** An engine controller whose every reconcile loses a race (409); the times it ran. */
async function losingRaces(onStale?: 'watch') {
  const clock = new FakeClock();
  const metrics = new RuntimeMetrics();
  const ctx = {
    hub: { name: 'hub' },
    clock,
    log: pino({ level: 'silent' }),
    metrics,
  } as unknown as EngineContext;
  const calls: number[] = [];
  const controller = engineController(ctx, {
    name: 'propagation-status',
    ...nameKeys,
    reconcile: () => {
      calls.push(clock.now());
      return Promise.reject(conflict());
    },
    ...(onStale && { onStale }),
  });
  controller.enqueue('b');
  await controller.start();
  await clock.advance(1000);
  await controller.stop();
  const retries = (await metrics.workqueueRetries.get()).values.reduce((sum, v) => sum + v.value, 0);
  return { calls: calls.length, retries };
}

describe('engine controllers and lost races', () => {
  it('back off by default: the engine writes across planes no one watch covers', async () => {
    const { calls, retries } = await losingRaces();
    assert.ok(calls > 1, `reconciled ${calls} times`);
    assert.ok(retries > 0);
  });

  it("wait for the newer state's event, with no retry, when the controller says onStale: watch (the status controller)", async () => {
    assert.deepEqual(await losingRaces('watch'), { calls: 1, retries: 0 });
  });
});
