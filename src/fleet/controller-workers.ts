/**
 * The fleet's controller workers, seen from the fleet's thread: the controller sets
 * (controller-sets.ts) run in worker threads of the fleet's own process (controller-worker.ts),
 * off the API server's event loop, so that on a machine with two cores the server and the
 * controllers each have one. Threads, not child processes: a `kill -9` of the fleet still ends
 * everything, and the fleet stays one process.
 *
 * Guarantees:
 * - `startControllerWorkers` resolves once every set in every worker has started, with their
 *   `/metrics` URLs; if a worker fails first, the others are terminated and it rejects with the
 *   worker's error;
 * - after that, a worker that fails or exits without being asked to is the fleet failing: it is
 *   logged at `fatal` and its error is thrown on this thread, uncaught, as the error would have been
 *   when the set ran here — `netpresence up` exits 1 with it rather than run half a fleet;
 * - `stop(order)` stops the sets one at a time in `order` (each in its worker, waiting for it to
 *   say so), then ends the workers; it is safe to call twice.
 *
 * From a checkout (this file runs as TypeScript), a worker registers tsx's loader itself before
 * importing its entry: a worker does not inherit the loader of the thread that starts it.
 */
import { Worker } from 'node:worker_threads';
import { pino, type Logger } from 'pino';
import { setId, type ControllerSet } from './controller-sets.ts';
import type { ControllerWorkerData, FromWorker, ToWorker, WorkerLog } from './controller-worker-protocol.ts';
import type { WorkerConnections } from './in-process-transport.ts';

export const workerMessages = {
  exited: (worker: string, code: number) =>
    `controller worker ${worker} exited with code ${code} while the fleet was running`,
  failed: (worker: string, message: string) => `controller worker ${worker} failed: ${message}`,
  failedToStart: (worker: string, message: string) =>
    `controller worker ${worker} failed to start: ${message}`,
  notStarted: (worker: string, code: number) =>
    `controller worker ${worker} exited with code ${code} before it started`,
  stopFailed: (worker: string, set: string, message: string) =>
    `controller worker ${worker} could not stop ${set}: ${message}`,
};

export interface ControllerWorkers {
  metricsUrls: string[];
  stop(order: string[]): Promise<void>;
}

/**
 * The young generation of a controller worker's heap, in MiB (V8's default on 64 bits is 48:
 * semi-spaces of 16). The controllers allocate fast and briefly — every watch event decoded,
 * every object copied to compare and write — and with the default nursery much of that survives
 * two scavenges mid-burst and is promoted, to be collected later by full collections. With 192
 * (semi-spaces of 64) the 10,000-binding burst used 16 % less CPU and converged 16 % sooner at
 * the same peak RSS; 384 was faster still but peaked 280 MiB higher (bench/README.md, "The
 * controller worker's heap"). The old generation keeps V8's default.
 */
export const WORKER_YOUNG_GENERATION_MB = 192;

/** A new worker running controller-worker.ts, from dist/ (JavaScript) or from a checkout (tsx). */
function spawn(data: ControllerWorkerData): Worker {
  const here = import.meta.url;
  const options = {
    workerData: data,
    transferList: data.connections ? [data.connections.acceptor] : [],
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  };
  if (!here.endsWith('.ts')) return new Worker(new URL('./controller-worker.js', here), options);
  const entry = new URL('./controller-worker.ts', here).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** The log settings a worker rebuilds its log from: the fleet log's level, bindings and descriptor. */
function workerLog(log: Logger): WorkerLog {
  const stream = Reflect.get(log, pino.symbols.streamSym) as { fd?: unknown } | undefined;
  return {
    level: log.level,
    bindings: log.bindings(),
    fd: typeof stream?.fd === 'number' ? stream.fd : 2,
  };
}

class ControllerWorker {
  readonly started: Promise<string[]>;
  private stopping = false;
  private failed = false;
  private readonly stops = new Map<string, { resolve(): void; reject(err: Error): void }>();
  private readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    readonly sets: string[],
    private readonly worker: Worker,
    private readonly log: Logger,
    private readonly onFailure: (err: Error) => void,
  ) {
    let resolveStarted: (urls: string[]) => void = () => {};
    let rejectStarted: (err: Error) => void = () => {};
    let running = false;
    this.started = new Promise<string[]>((resolve, reject) => {
      resolveStarted = resolve;
      rejectStarted = reject;
    });
    this.started.catch(() => undefined); // awaited by startControllerWorkers
    worker.on('message', (message: FromWorker) => {
      if (message.kind === 'started') {
        running = true;
        resolveStarted(message.metricsUrls);
      } else {
        const waiting = this.stops.get(message.set);
        this.stops.delete(message.set);
        if (message.error)
          waiting?.reject(new Error(workerMessages.stopFailed(name, message.set, message.error)));
        else waiting?.resolve();
      }
    });
    worker.on('error', (err) => {
      if (!running) rejectStarted(new Error(workerMessages.failedToStart(name, err.message), { cause: err }));
      else this.fail(new Error(workerMessages.failed(name, err.message), { cause: err }));
    });
    this.exited = new Promise((resolve) =>
      worker.on('exit', (code) => {
        if (!running) rejectStarted(new Error(workerMessages.notStarted(name, code)));
        else this.fail(new Error(workerMessages.exited(name, code)));
        resolve();
      }),
    );
  }

  /** A worker gone while the fleet runs: logged, then handed to `onFailure`, once. */
  private fail(err: Error): void {
    const waiting = [...this.stops.values()];
    this.stops.clear();
    for (const stop of waiting) stop.reject(err);
    if (this.stopping || this.failed) return;
    this.failed = true;
    this.log.fatal({ worker: this.name, err }, 'a controller worker failed: the fleet cannot run without it');
    this.onFailure(err);
  }

  /** From now on an exit is expected. */
  expectExit(): void {
    this.stopping = true;
  }

  stopSet(set: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.stops.set(set, { resolve, reject });
      this.worker.postMessage({ kind: 'stop', set } satisfies ToWorker);
    });
  }

  async terminate(): Promise<void> {
    this.stopping = true;
    await this.worker.terminate();
    await this.exited;
  }
}

/** The default failure: thrown on this thread, uncaught, so that the process ends with it. */
function throwUncaught(err: Error): void {
  process.nextTick(() => {
    throw err;
  });
}

export interface ControllerWorkerOptions {
  /** How a worker is made; default a thread running controller-worker.ts. */
  spawn?: (data: ControllerWorkerData) => Worker;
  /** What a worker failing while the fleet runs does; default thrown, uncaught. */
  onFailure?: (err: Error) => void;
  /** Each worker's own way to the server's in-process origin (in-process-transport.ts). */
  connections?: () => WorkerConnections;
}

/** Starts one worker per group of sets; see the guarantees above. */
export async function startControllerWorkers(
  groups: { name: string; sets: ControllerSet[] }[],
  log: Logger,
  options: ControllerWorkerOptions = {},
): Promise<ControllerWorkers> {
  const settings = workerLog(log);
  const spawnWorker = options.spawn ?? spawn;
  const onFailure = options.onFailure ?? throwUncaught;
  const workers = groups
    .filter((group) => group.sets.length > 0)
    .map(
      (group) =>
        new ControllerWorker(
          group.name,
          group.sets.map(setId),
          spawnWorker({
            name: group.name,
            sets: group.sets,
            log: settings,
            ...(options.connections && { connections: options.connections() }),
          }),
          log,
          onFailure,
        ),
    );
  let metricsUrls: string[][];
  try {
    metricsUrls = await Promise.all(workers.map((worker) => worker.started));
  } catch (err) {
    await Promise.all(workers.map((worker) => worker.terminate()));
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    metricsUrls: metricsUrls.flat(),
    stop(order) {
      stopping ??= (async () => {
        for (const worker of workers) worker.expectExit();
        try {
          for (const set of order) await workers.find((worker) => worker.sets.includes(set))?.stopSet(set);
        } finally {
          await Promise.all(workers.map((worker) => worker.terminate()));
        }
      })();
      return stopping;
    },
  };
}
