import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { FakeResource } from '../../test/support/fake-resource-client.ts';
import type { ResourceClient, ResourceId } from '../client/types.ts';
import { FakeClock } from './clock.ts';
import { LEASES, NAMESPACES, type Lease } from './leader-election.ts';
import { runWhileLeading, type TermWork } from './run-while-leading.ts';

const silent = pino({ level: 'silent' });
const T0 = Date.UTC(2025, 0, 1);

/** Candidates for one Lease whose work records what it does in `timeline`. */
function fleet() {
  const clock = new FakeClock(T0);
  const leases = new FakeResource<Lease>(LEASES);
  const namespaces = new FakeResource(NAMESPACES);
  const timeline: string[] = [];
  /** The signal each term's build was handed, in order. */
  const signals: AbortSignal[] = [];
  const piece = (label: string, failStop = false): TermWork => ({
    start: async () => void timeline.push(`start ${label}`),
    stop: async () => {
      timeline.push(`stop ${label}`);
      if (failStop) throw new Error(`${label} cannot stop`);
    },
  });
  const candidate = (identity: string, ready?: () => Promise<unknown>, failStop = false) => {
    let terms = 0;
    return runWhileLeading(
      (term) => {
        signals.push(term);
        terms++;
        return [piece(`${identity}${terms}.a`, failStop), piece(`${identity}${terms}.b`)];
      },
      {
        plane: {
          client: (id: ResourceId) =>
            (id.plural === 'leases'
              ? leases.client()
              : namespaces.client()) as unknown as ResourceClient<any>,
        },
        name: 'netpresence-cell',
        namespace: 'kube-system',
        identity,
        clock,
        log: silent,
        random: () => 1,
        ready,
        what: 'test controllers',
      },
    );
  };
  return { clock, leases, timeline, signals, candidate };
}

describe('run while leading', () => {
  it('starts the work in order once ready, and stops it in the same order when the term ends', async () => {
    const { clock, timeline, candidate } = fleet();
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    const a = candidate('a', () => ready);
    await clock.advance(0);
    assert.equal(a.isLeader(), true);
    assert.deepEqual(timeline, [], 'nothing starts before what it reads is ready');
    markReady();
    await clock.advance(0);
    assert.deepEqual(timeline, ['start a1.a', 'start a1.b']);
    await a.stop();
    assert.deepEqual(timeline, ['start a1.a', 'start a1.b', 'stop a1.a', 'stop a1.b']);
  });

  it("hands the work it builds the term's signal, aborted when the term ends", async () => {
    const { clock, signals, candidate } = fleet();
    const a = candidate('a');
    await clock.advance(0);
    assert.equal(signals.length, 1);
    assert.equal(signals[0].aborted, false, 'live while the term lasts');
    await a.stop();
    assert.equal(signals[0].aborted, true, 'aborted once the term ended');
  });

  it('stops every piece though one fails to stop', async () => {
    const { clock, timeline, candidate } = fleet();
    const a = candidate('a', undefined, true);
    await clock.advance(0);
    await a.stop();
    assert.deepEqual(timeline, ['start a1.a', 'start a1.b', 'stop a1.a', 'stop a1.b']);
  });

  it('never runs two candidates’ work at once: the second starts its own only after the first stopped', async () => {
    const { clock, timeline, candidate } = fleet();
    const a = candidate('a');
    await clock.advance(0);
    const b = candidate('b');
    await clock.advance(5000);
    assert.deepEqual(timeline, ['start a1.a', 'start a1.b'], 'b waits while a holds the Lease');
    await a.stop();
    await clock.advance(5000);
    assert.deepEqual(timeline, [
      'start a1.a',
      'start a1.b',
      'stop a1.a',
      'stop a1.b',
      'start b1.a',
      'start b1.b',
    ]);
    await b.stop();
  });
});
