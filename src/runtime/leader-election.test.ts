import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { FakeResource } from '../../test/support/fake-resource-client.ts';
import { FakeClock } from './clock.ts';
import { LEASES, NAMESPACES, runLeaderElection, type Lease } from './leader-election.ts';

const silent = pino({ level: 'silent' });
const T0 = Date.UTC(2025, 0, 1);

function fleet(jitter = 1) {
  const clock = new FakeClock(T0);
  const leases = new FakeResource<Lease>(LEASES);
  const namespaces = new FakeResource(NAMESPACES);
  const timeline: string[] = [];
  const at = (): number => (clock.now() - T0) / 1000;
  const candidate = (identity: string) => {
    const client = leases.client();
    const signals: AbortSignal[] = [];
    let workSettled = 0;
    const election = runLeaderElection({
      client,
      namespacesClient: namespaces.client(),
      name: 'netpresence-manager',
      namespace: 'kube-system',
      identity,
      clock,
      log: silent,
      random: () => jitter,
      onStartedLeading(signal) {
        signals.push(signal);
        timeline.push(`${at()}s ${identity} started`);
        return new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            workSettled++;
            resolve();
          }),
        );
      },
      onStoppedLeading() {
        timeline.push(`${at()}s ${identity} stopped`);
      },
    });
    return { client, election, signals, settled: () => workSettled };
  };
  const holder = () => leases.read('kube-system', 'netpresence-manager')?.spec?.holderIdentity;
  return { clock, leases, namespaces, timeline, candidate, holder, at };
}

describe('leader election', () => {
  it('creates kube-system and the Lease when absent, and renews it every retry period', async () => {
    const { clock, namespaces, candidate, holder, leases } = fleet();
    const a = candidate('a');
    await clock.advance(0);
    assert.deepEqual(
      namespaces.all().map((ns) => ns.metadata.name),
      ['kube-system'],
    );
    assert.equal(holder(), 'a');
    assert.equal(a.election.isLeader(), true);
    const lease = leases.read('kube-system', 'netpresence-manager')!;
    assert.deepEqual(lease.spec, {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2025-01-01T00:00:00.000000Z',
      renewTime: '2025-01-01T00:00:00.000000Z',
      leaseTransitions: 0,
    });
    await clock.advance(2000);
    assert.equal(
      leases.read('kube-system', 'netpresence-manager')!.spec!.renewTime,
      '2025-01-01T00:00:02.000000Z',
    );
    await a.election.stop();
  });

  it('lets only one of two candidates racing for a free Lease lead', async () => {
    const { clock, candidate, holder } = fleet();
    const a = candidate('a');
    const b = candidate('b');
    await clock.advance(10_000);
    assert.equal([a, b].filter((c) => c.election.isLeader()).length, 1);
    assert.equal(holder(), a.election.isLeader() ? 'a' : 'b');
    await a.election.stop();
    await b.election.stop();
  });

  it('hands over within one lease duration when the leader stops, after its work settled', async () => {
    const { clock, candidate, holder, timeline, leases } = fleet();
    const a = candidate('a');
    await clock.advance(0);
    const b = candidate('b');
    await clock.advance(30_000);
    assert.equal(holder(), 'a');

    await a.election.stop();
    assert.equal(a.settled(), 1);
    assert.equal(holder(), undefined, 'the stopped leader released the lease');
    await clock.advance(15_000);
    assert.equal(holder(), 'b');
    // b retries every 2 × (1 + 1.2) = 4.4 s (0, 4.4, … 26.4, 30.8): it takes over at its next try.
    assert.deepEqual(timeline, ['0s a started', '30s a stopped', '30.8s b started']);
    assert.equal(leases.read('kube-system', 'netpresence-manager')!.spec!.leaseTransitions, 1);
    await b.election.stop();
  });

  it('on stop, waits for a renewal still in flight before releasing, and writes no renewal after', async () => {
    const { clock, candidate, holder, leases } = fleet();
    const a = candidate('a');
    await clock.advance(1000);
    assert.equal(holder(), 'a');

    // From now on a's reads reach the server only when the gate opens: the renewal of 2 s is on
    // the wire when stop() is called, and is answered only afterwards.
    const calls: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let held = true;
    const get = a.client.get.bind(a.client);
    const update = a.client.update.bind(a.client);
    a.client.get = async (name, namespace) => {
      const delayed = held;
      held = false;
      if (delayed) await gate;
      calls.push(delayed ? 'get (delayed renewal)' : 'get');
      return get(name, namespace);
    };
    a.client.update = async (lease) => {
      calls.push(`update holder=${lease.spec?.holderIdentity ?? 'none'}`);
      return update(lease);
    };
    await clock.advance(1000);
    assert.deepEqual(calls, [], 'the renewal of 2 s is in flight');

    let stopped = false;
    const stopping = a.election.stop().then(() => (stopped = true));
    await clock.advance(0);
    assert.equal(stopped, false, 'stop() waits for the renewal in flight');
    open();
    await stopping;
    await clock.advance(30_000);

    assert.equal(holder(), undefined, 'the Lease stays released');
    assert.equal(leases.read('kube-system', 'netpresence-manager')!.spec!.leaseDurationSeconds, 1);
    assert.deepEqual(calls, ['get (delayed renewal)', 'get', 'update holder=none']);
  });

  it('stops a leader that cannot renew within the renew deadline, before another takes over', async () => {
    const { clock, candidate, holder, timeline } = fleet(0);
    const a = candidate('a');
    await clock.advance(0);
    const b = candidate('b');
    await clock.advance(5_000); // a renewed at 2 and 4 s
    a.client.offline = new Error('connect ETIMEDOUT');
    await clock.advance(30_000);

    assert.equal(a.election.isLeader(), false);
    assert.equal(a.signals[0].aborted, true);
    assert.equal(holder(), 'b');
    // a stops at 4 + 10 s; b saw the renewal of 4 s at 4 s and may take over from 4 + 15 s.
    assert.deepEqual(timeline, ['0s a started', '14s a stopped', '20s b started']);
    await a.election.stop();
    await b.election.stop();
  });

  it('stops a leader at once when it finds another holder in the Lease', async () => {
    const { clock, candidate, leases, timeline } = fleet();
    const a = candidate('a');
    await clock.advance(1000);
    const lease = leases.read('kube-system', 'netpresence-manager')!;
    leases.put({ ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    await clock.advance(1000);
    assert.deepEqual(timeline, ['0s a started', '2s a stopped']);
    await a.election.stop();
    assert.equal(leases.read('kube-system', 'netpresence-manager')!.spec!.holderIdentity, 'intruder');
  });

  it('makes a deposed leader a candidate again, leading once the Lease is free', async () => {
    const { clock, candidate, holder, timeline } = fleet(0);
    const a = candidate('a');
    await clock.advance(0);
    const b = candidate('b');
    a.client.offline = new Error('connect ETIMEDOUT');
    await clock.advance(30_000);
    a.client.offline = undefined;
    await clock.advance(10_000);
    assert.equal(holder(), 'b');

    await b.election.stop();
    await clock.advance(2_000);
    assert.equal(holder(), 'a');
    assert.equal(a.election.isLeader(), true);
    assert.equal(timeline.at(-1), `42s a started`);
    await a.election.stop();
  });
});
