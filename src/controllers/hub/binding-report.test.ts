import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NetworkBinding } from '../../apis/networking/v1alpha/network-binding.ts';
import { statusErrorFrom } from '../../client/errors.ts';
import type { ResourceClient } from '../../client/types.ts';
import { report, stampLabels, type BindingWriter } from './binding-report.ts';

interface Patch {
  name: string;
  body: any;
  subresource?: string;
}

/** A client that applies merge patches shallowly enough for these tests and records them. */
function writer(now = Date.parse('2030-01-01T00:00:00Z'), fail: string[] = []) {
  const patches: Patch[] = [];
  const client = {
    async patchMerge(name: string, _namespace: string, body: any, options: { subresource?: string } = {}) {
      if (fail.includes(name)) throw new Error(`refused ${name}`);
      patches.push({ name, body, subresource: options.subresource });
      return { metadata: { name }, spec: {}, ...body } as NetworkBinding;
    },
  } as unknown as ResourceClient<NetworkBinding>;
  const w: BindingWriter = { client, now: () => now };
  return { w, patches };
}

/**
 * One binding on a pretend server: status merge patches replace the keys they name, a patch
 * naming a resourceVersion other than the held one is refused 409 as the API server does, and
 * every accepted patch is a new revision.
 */
function server(held: NetworkBinding, clock: { now: number }) {
  let revision = 1;
  let stored: NetworkBinding = structuredClone({
    ...held,
    metadata: { ...held.metadata, resourceVersion: '1' },
  });
  let writes = 0;
  const client = {
    async patchMerge(_name: string, _namespace: string, body: any) {
      const expected = body.metadata?.resourceVersion;
      if (expected !== undefined && expected !== stored.metadata.resourceVersion)
        throw statusErrorFrom(409, {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 409,
          reason: 'Conflict',
          message: 'the object has been modified',
        });
      writes++;
      stored = structuredClone({
        ...stored,
        metadata: { ...stored.metadata, resourceVersion: String(++revision) },
        status: { ...stored.status, ...body.status },
      });
      return structuredClone(stored);
    },
  } as unknown as ResourceClient<NetworkBinding>;
  const w: BindingWriter = { client, now: () => clock.now };
  return { w, stored: () => stored, writes: () => writes };
}

function binding(
  name: string,
  status?: NetworkBinding['status'],
  labels?: Record<string, string>,
): NetworkBinding {
  return {
    metadata: { name, namespace: 'h', generation: 2, labels },
    spec: { network: { name: 'vpc' }, location: { name: 'l' } },
    status,
  };
}

const notReady = {
  status: 'False' as const,
  reason: 'NetworkContextNotReady',
  message: 'Network context is not ready.',
};

describe('binding report', () => {
  it('writes Ready with the generation and the ref once, then nothing when unchanged', async () => {
    const { w, patches } = writer();
    const ref = { namespace: 'default', name: 'vpc-l' };
    const [written] = await report([binding('web')], { ...notReady, ref }, w);
    assert.equal(patches.length, 1);
    assert.equal(patches[0].subresource, 'status');
    assert.deepEqual(patches[0].body.status.networkContextRef, ref);
    assert.equal(patches[0].body.status.conditions[0].observedGeneration, 2);
    await report([binding('web', written.status)], { ...notReady, ref }, w);
    assert.equal(patches.length, 1, 'an unchanged outcome writes nothing');
  });

  it('keeps the ref across a regression and moves the time only with status', async () => {
    const { w, patches } = writer();
    const held = {
      networkContextRef: { namespace: 'default', name: 'vpc-l' },
      conditions: [
        {
          type: 'Ready',
          status: 'False' as const,
          reason: 'NetworkContextNotReady',
          message: 'm',
          lastTransitionTime: 'T0',
          observedGeneration: 2,
        },
      ],
    };
    await report(
      [binding('web', held)],
      { status: 'False', reason: 'LocationNotAvailable', message: 'gone' },
      w,
    );
    assert.equal(patches[0].body.status.networkContextRef, undefined, 'the ref is not rewritten');
    assert.equal(patches[0].body.status.conditions[0].lastTransitionTime, 'T0');
  });

  it('drops a report computed from a copy older than its own previous one: Ready keeps its time', async () => {
    const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
    const lagging = binding('web', {
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'NetworkContextNotReady',
          message: 'Network context is not ready.',
          lastTransitionTime: '2029-12-31T23:59:00Z',
          observedGeneration: 2,
        },
      ],
    });
    const s = server(lagging, clock);
    const copy = structuredClone(s.stored()); // the store's copy, as of revision 1
    const ready = { status: 'True' as const, reason: 'Ready', message: 'ready' };
    await report([copy], ready, s.w);
    const firstTime = s.stored().status!.conditions![0].lastTransitionTime;
    assert.equal(firstTime, '2030-01-01T00:00:00Z');
    // The store has not seen that write yet: the next reconcile computes from the same copy.
    clock.now += 5000;
    const turned: string[] = [];
    s.w.turnedReady = (b) => turned.push(b.metadata.name!);
    await report([copy], ready, s.w);
    assert.equal(s.writes(), 1, 'the stale report is not written');
    assert.equal(s.stored().status!.conditions![0].lastTransitionTime, firstTime, 'Ready keeps its time');
    assert.deepEqual(turned, [], 'a dropped report does not count a binding turning Ready');
    // From the current copy: nothing changed, nothing written.
    await report([s.stored()], ready, s.w);
    assert.equal(s.writes(), 1);
  });

  it('reports from its own last write while the store lags it, and drops a report when someone else wrote since', async () => {
    const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
    const s = server(binding('web'), clock);
    s.w.lastWritten = new Map();
    const copy = structuredClone(s.stored()); // the store's copy, as of revision 1
    await report([copy], notReady, s.w);
    assert.equal(s.writes(), 1);
    // The context turns Ready before the store has seen the first report: written at once.
    const turned: string[] = [];
    s.w.turnedReady = (b) => turned.push(b.metadata.name!);
    const ready = { status: 'True' as const, reason: 'Ready', message: 'ready' };
    await report([copy], ready, s.w);
    assert.equal(s.writes(), 2, 'the Ready report is written, not refused by its own previous write');
    assert.equal(s.stored().status!.conditions![0].status, 'True');
    assert.deepEqual(turned, ['web']);
    // Another writer's change since this writer's last write: the report is refused and dropped.
    await s.w.client.patchMerge('web', 'h', { status: { conditions: [] } }, { subresource: 'status' });
    await report([copy], notReady, s.w);
    assert.equal(s.writes(), 3, 'only the other writer wrote');
    assert.equal(s.w.lastWritten.size, 0, 'a refused report forgets the last write');
    // Once the store has caught up, the store's copy is used and the entry is dropped.
    s.w.lastWritten.set('h/web', structuredClone(s.stored()));
    await report([structuredClone(s.stored())], { ...notReady, reason: 'Other' }, s.w);
    assert.equal(s.writes(), 4);
  });

  it('attempts every binding and throws the failures together', async () => {
    const { w, patches } = writer(0, ['a', 'b']);
    await assert.rejects(report([binding('a'), binding('ok'), binding('b')], notReady, w), AggregateError);
    assert.deepEqual(
      patches.map((p) => p.name),
      ['ok'],
    );
  });

  it('stamps only missing or different labels', async () => {
    const { w, patches } = writer();
    await stampLabels(
      [binding('web', undefined, { 'networking.datumapis.com/network': 'vpc', other: 'x' })],
      {
        'networking.datumapis.com/network': 'vpc',
        'networking.datumapis.com/location': 'l',
      },
      w,
    );
    assert.deepEqual(patches[0].body, { metadata: { labels: { 'networking.datumapis.com/location': 'l' } } });
    await stampLabels(
      [binding('lb', undefined, { 'networking.datumapis.com/network': 'vpc' })],
      { 'networking.datumapis.com/network': 'vpc' },
      w,
    );
    assert.equal(patches.length, 1);
  });
});
