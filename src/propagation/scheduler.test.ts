import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConflictError } from '../client/errors.ts';
import { FakeClock } from '../runtime/clock.ts';
import type { Binding, HubView } from './hub-view.ts';
import { FRESH_READ_ATTEMPTS, reconcile } from './scheduler.ts';

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

describe('scheduler', () => {
  it('redoes a pass that lost a race from a fresh read, at once, instead of backing off', async () => {
    const { view, writes } = hub();
    await reconcile(
      { kind: 'ResourceBinding', namespace: 'ns', name: 'b' },
      view,
      new FakeClock(Date.parse('2026-12-03T00:00:00Z')),
    );
    assert.deepEqual(writes, ['update at 2', 'status at 3']);
  });

  it(`backs off (throws the conflict) after ${FRESH_READ_ATTEMPTS} lost races in a row`, async () => {
    const { view, writes } = hub(FRESH_READ_ATTEMPTS);
    await assert.rejects(
      reconcile(
        { kind: 'ResourceBinding', namespace: 'ns', name: 'b' },
        view,
        new FakeClock(Date.parse('2026-12-03T00:00:00Z')),
      ),
      ConflictError,
    );
    assert.deepEqual(writes, []);
  });
});
