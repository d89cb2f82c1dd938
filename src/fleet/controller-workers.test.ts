import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import type { ControllerSet } from './controller-sets.ts';
import type { ControllerWorkerData } from './controller-worker-protocol.ts';
import { startControllerWorkers, workerMessages } from './controller-workers.ts';

/** What a stand-in worker does once spawned; it speaks the protocol of controller-worker.ts. */
type Behaviour = 'serve' | 'throw-after-start' | 'exit-after-start' | 'throw-at-start';

/**
 * A worker that speaks controller-worker.ts's protocol without starting anything: it says it
 * started (with one metrics URL per set), and answers each stop after 20 ms, noting in the shared
 * journal when it received the stop (2i) and when it answered (2i+1), i the set's index in `sets`.
 * Its dynamic import reads the same as a script and as a module (`--input-type=module` reaches
 * eval'd workers too).
 */
const STAND_IN = `
import('node:worker_threads').then(({ parentPort, workerData }) => {
  const journal = new Int32Array(workerData.journal);
  const note = (event) => { const at = Atomics.add(journal, 0, 1) + 1; journal[at] = event; };
  if (workerData.behaviour === 'throw-at-start') throw new Error('no kubeconfig');
  parentPort.postMessage({ kind: 'started', metricsUrls: workerData.data.sets.map((set) => 'http://' + set.name) });
  if (workerData.behaviour === 'throw-after-start') setTimeout(() => { throw new Error('boom'); }, 10);
  if (workerData.behaviour === 'exit-after-start') setTimeout(() => process.exit(3), 10);
  parentPort.on('message', (message) => {
    const i = workerData.sets.indexOf(message.set);
    note(2 * i);
    setTimeout(() => { note(2 * i + 1); parentPort.postMessage({ kind: 'stopped', set: message.set }); }, 20);
  });
});
`;

const cell = (name: string): ControllerSet => ({ kind: 'cell', name, cell: '', ipam: '', hub: '' });

function standIns(sets: string[], behaviours: Record<string, Behaviour> = {}) {
  const journal = new SharedArrayBuffer(4 * 64);
  const workers: Worker[] = [];
  const exits: Promise<void>[] = [];
  return {
    workers,
    /**
     * Each worker's end, listened for from its spawn: a worker that dies before the fleet's thread
     * reads its error has both its 'error' and its 'exit' emitted in one callback, so a listener
     * added once the error is reported would miss the exit.
     */
    exits,
    /** The journal's events, in the order they happened. */
    events: () => {
      const view = new Int32Array(journal);
      return [...view.slice(1, 1 + view[0])];
    },
    spawn: (data: ControllerWorkerData) => {
      const behaviour = behaviours[data.name] ?? 'serve';
      const worker = new Worker(STAND_IN, { eval: true, workerData: { data, sets, journal, behaviour } });
      workers.push(worker);
      exits.push(new Promise((resolve) => worker.once('exit', () => resolve())));
      return worker;
    },
  };
}

function collectingLog() {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, lines };
}

const exited = (worker: Worker) => worker.threadId === -1;

describe('controller workers', () => {
  it('stops the sets one at a time in the order given, each in its worker, then ends the workers', async () => {
    const sets = ['cell/cell-a', 'cell/cell-b', 'cell/cell-c'];
    const fake = standIns(sets);
    let failures = 0;
    const workers = await startControllerWorkers(
      [
        { name: 'one', sets: [cell('cell-a'), cell('cell-c')] },
        { name: 'two', sets: [cell('cell-b')] },
      ],
      pino({ level: 'silent' }),
      { spawn: fake.spawn, onFailure: () => failures++ },
    );
    assert.deepEqual(workers.metricsUrls, ['http://cell-a', 'http://cell-c', 'http://cell-b']);

    await workers.stop(['cell/cell-c', 'cell/cell-a', 'cell/cell-b']);
    // c (index 2) received and answered, then a (0), then b (1): never two at once.
    assert.deepEqual(fake.events(), [4, 5, 0, 1, 2, 3]);
    assert.ok(fake.workers.every(exited));
    assert.equal(failures, 0, 'a worker ended by stop() is no failure');
    await workers.stop(['cell/cell-a']);
    assert.equal(fake.events().length, 6, 'a second stop() stops nothing again');
  });

  it('a worker that throws while the fleet runs is one failure naming the worker, logged as fatal', async () => {
    const fake = standIns(['cell/cell-a'], { controllers: 'throw-after-start' });
    const { log, lines } = collectingLog();
    const failures: Error[] = [];
    let failed: () => void = () => {};
    const reported = new Promise<void>((resolve) => (failed = resolve));
    const workers = await startControllerWorkers([{ name: 'controllers', sets: [cell('cell-a')] }], log, {
      spawn: fake.spawn,
      onFailure: (err) => {
        failures.push(err);
        failed();
      },
    });
    await reported;
    await fake.exits[0];
    assert.equal(failures.length, 1, 'the error and the exit that follows it are one failure');
    assert.equal(failures[0].message, workerMessages.failed('controllers', 'boom'));
    assert.ok(lines.some((line) => line.level === 60 && line.worker === 'controllers'));
    await workers.stop([]);
  });

  it('a worker that exits unasked while the fleet runs is a failure naming the worker and its code', async () => {
    const fake = standIns(['cell/cell-a'], { controllers: 'exit-after-start' });
    let failed: (err: Error) => void = () => {};
    const failure = new Promise<Error>((resolve) => (failed = resolve));
    const workers = await startControllerWorkers(
      [{ name: 'controllers', sets: [cell('cell-a')] }],
      pino({ level: 'silent' }),
      { spawn: fake.spawn, onFailure: (err) => failed(err) },
    );
    assert.equal((await failure).message, workerMessages.exited('controllers', 3));
    await workers.stop([]);
  });

  it('a worker that fails to start rejects the start, naming it, and the other workers are ended', async () => {
    const fake = standIns(['cell/cell-a', 'cell/cell-b'], { two: 'throw-at-start' });
    await assert.rejects(
      startControllerWorkers(
        [
          { name: 'one', sets: [cell('cell-a')] },
          { name: 'two', sets: [cell('cell-b')] },
        ],
        pino({ level: 'silent' }),
        { spawn: fake.spawn },
      ),
      { message: workerMessages.failedToStart('two', 'no kubeconfig') },
    );
    assert.ok(fake.workers.every(exited));
  });

  it('the real worker, started from the TypeScript sources, reports a set it cannot start, naming the worker', async () => {
    await assert.rejects(
      startControllerWorkers(
        [{ name: 'controllers', sets: [{ kind: 'manager', hub: 'not a kubeconfig', platform: '' }] }],
        pino({ level: 'silent' }),
      ),
      (err: Error) => err.message.startsWith('controller worker controllers failed to start: '),
    );
  });

  it('by default a worker failing while the fleet runs ends the process with exit code 1, naming the worker', () => {
    const script = `
      import { Worker } from 'node:worker_threads';
      import { pino } from 'pino';
      import { startControllerWorkers } from ${JSON.stringify(new URL('./controller-workers.ts', import.meta.url).href)};
      const code = ${JSON.stringify(STAND_IN)};
      const journal = new SharedArrayBuffer(64);
      await startControllerWorkers([{ name: 'controllers', sets: [{ kind: 'cell', name: 'cell-a' }] }], pino({ level: 'silent' }), {
        spawn: (data) => new Worker(code, { eval: true, workerData: { data, sets: [], journal, behaviour: 'throw-after-start' } }),
      });
      setInterval(() => {}, 1000);
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: new URL('../..', import.meta.url).pathname,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(child.status, 1, child.stderr);
    assert.match(child.stderr, /controller worker controllers failed: boom/);
  });
});
