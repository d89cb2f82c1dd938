import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConflictError } from '../client/errors.ts';
import { FakeClock } from '../runtime/clock.ts';
import { Controller, FRESH_READ_ATTEMPTS } from '../runtime/controller.ts';
import { rootLogger } from '../runtime/logging.ts';
import { RuntimeMetrics } from '../runtime/metrics.ts';
import type { Binding, HubView } from './hub-view.ts';
import { bindingKeyFromString, bindingKeyString, type BindingKey } from './keys.ts';
import { reconcile } from './scheduler.ts';

const cluster = {
  metadata: { name: 'cell-a' },
  spec: {},
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
};

const binding = (resourceVersion: string): Binding => ({
  metadata: { name: 'b', namespace: 'ns', resourceVersion, generation: 1, annotations: {} },
  spec: { resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'ns' } },
});

/** A hub whose store still holds rv 1 while the server holds rv 2 (a status write the store has not seen). */
function hub(conflicts = 0) {
  const writes: string[] = [];
  let refused = 0;
  const conflict = () =>
    new ConflictError(409, {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message: 'the object has been modified',
    });
  const client = {
    get: async () => binding('2'),
    update: async (object: Binding) => {
      if (object.metadata.resourceVersion !== '2' || refused++ < conflicts) throw conflict();
      writes.push(`update at ${object.metadata.resourceVersion}`);
      return { ...object, metadata: { ...object.metadata, resourceVersion: '3' } };
    },
    patchMerge: async (
      _name: string,
      _namespace: string,
      patch: { metadata: { resourceVersion: string } },
    ) => {
      writes.push(`status at ${patch.metadata.resourceVersion}`);
      return binding('4');
    },
  };
  const view = {
    bindings: () => ({ get: () => binding('1') }),
    bindingClient: () => client,
    clusters: { store: { list: () => [cluster] } },
  } as unknown as HubView;
  return { view, writes };
}

/** The scheduler's reconcile under the controller's `onStale: 'reread'`, as schedulerController runs it. */
function scheduler(view: HubView, clock: FakeClock) {
  const metrics = new RuntimeMetrics();
  const passes: boolean[] = [];
  const controller = new Controller<BindingKey>({
    name: 'propagation-scheduler',
    reconcile: (key, _log, pass) => {
      passes.push(pass.fresh);
      return reconcile(key, view, clock, pass);
    },
    toString: bindingKeyString,
    fromString: bindingKeyFromString,
    clock,
    log: rootLogger({ level: 'silent' }),
    metrics,
    onStale: 'reread',
  });
  controller.enqueue({ kind: 'ResourceBinding', namespace: 'ns', name: 'b' });
  return { controller, passes, metrics };
}

describe('scheduler', () => {
  it('redoes a pass that lost a race from a fresh read, at once, instead of backing off', async () => {
    const clock = new FakeClock(Date.parse('2026-12-03T00:00:00Z'));
    const { view, writes } = hub();
    const { controller, passes } = scheduler(view, clock);
    await controller.start();
    await clock.advance(0);
    assert.deepEqual(writes, ['update at 2', 'status at 3']);
    assert.deepEqual(passes, [false, true], 'the store first, then the server');
    await controller.stop();
  });

  it(`backs off (throws the conflict) after ${FRESH_READ_ATTEMPTS} lost races in a row`, async () => {
    const clock = new FakeClock(Date.parse('2026-12-03T00:00:00Z'));
    const { view, writes } = hub(FRESH_READ_ATTEMPTS);
    const { controller, passes, metrics } = scheduler(view, clock);
    await controller.start();
    await clock.advance(0);
    assert.deepEqual(writes, []);
    assert.deepEqual(passes, [false, true, true]);
    const stale = await metrics.reconcileTotal.get();
    assert.equal(stale.values.find((v) => v.labels.result === 'stale')?.value, 1);
    await clock.advance(4);
    assert.equal(passes.length, 3, 'nothing more before the backoff');
    await clock.advance(1);
    assert.deepEqual(passes, [false, true, true, false, true, true], 'after 5 ms, the next reconcile');
    assert.deepEqual(writes, ['update at 2', 'status at 3']);
    await controller.stop();
  });
});
