/**
 * Preloaded into the fleet process by `bench:fleet --allocations DIR` (`--import`): samples what
 * every thread of the process allocates between two signals, by the function that allocated it.
 *
 * The first SIGUSR2 starts V8's sampling heap profiler on the main thread and, through the
 * inspector's NodeWorker domain, on every worker thread; the profiler is told to keep the samples
 * of objects later collected, so a profile is what the thread allocated over the span, not what
 * was still alive at its end. The second SIGUSR2 stops every profiler and writes one
 * `<thread>.heapprofile` per thread (Chrome DevTools' format; `main` and `worker-<id>`) into the
 * directory named by ALLOCATIONS_DIR_VARIABLE, then `done` once all are written.
 *
 * Guarantees: nothing is sampled before the first signal or after the second; a worker that
 * starts in between is not sampled. Caveat: sampling costs the fleet a few percent of CPU, so a
 * run with it is timed apart from the others.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ALLOCATIONS_DIR_VARIABLE = 'NETPRESENCE_BENCH_ALLOCATIONS_DIR';

/** One sample per this many bytes allocated, on average (V8's default is 32 KiB). */
const SAMPLING_INTERVAL_BYTES = 16_384;

const START_SAMPLING = {
  samplingInterval: SAMPLING_INTERVAL_BYTES,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
};

interface WorkerSession {
  sessionId: string;
  workerId: string;
}

const dir = process.env[ALLOCATIONS_DIR_VARIABLE];
if (dir) {
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result as T))),
    );

  // Worker sessions: each message to a worker has an id; its answer comes back with that id.
  const workers: WorkerSession[] = [];
  type Answer = { id?: number; result?: unknown; error?: { message: string } };
  const pending = new Map<number, (message: Answer) => void>();
  let nextId = 1;
  session.on('NodeWorker.attachedToWorker', ({ params }) => {
    const { sessionId, workerInfo } = params as { sessionId: string; workerInfo: { workerId: string } };
    workers.push({ sessionId, workerId: workerInfo.workerId });
  });
  session.on('NodeWorker.receivedMessageFromWorker', ({ params }) => {
    const message = JSON.parse((params as { message: string }).message) as Answer;
    if (message.id === undefined) return;
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  const postToWorker = (worker: WorkerSession, method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (message) =>
        message.error ? reject(new Error(message.error.message)) : resolve(message.result),
      );
      void post('NodeWorker.sendMessageToWorker', {
        sessionId: worker.sessionId,
        message: JSON.stringify({ id, method, params }),
      }).catch(reject);
    });

  // Attached now, each worker is known by the time sampling starts.
  void post('NodeWorker.enable', { waitForDebuggerOnStart: false });

  let sampling = false;
  process.on('SIGUSR2', () => {
    void (async () => {
      if (!sampling) {
        sampling = true;
        await post('HeapProfiler.startSampling', START_SAMPLING);
        await Promise.all(workers.map((w) => postToWorker(w, 'HeapProfiler.startSampling', START_SAMPLING)));
        return;
      }
      const { profile } = await post<{ profile: unknown }>('HeapProfiler.stopSampling');
      writeFileSync(join(dir, 'main.heapprofile'), JSON.stringify(profile));
      for (const worker of workers) {
        const result = (await postToWorker(worker, 'HeapProfiler.stopSampling')) as { profile: unknown };
        writeFileSync(join(dir, `worker-${worker.workerId}.heapprofile`), JSON.stringify(result.profile));
      }
      writeFileSync(join(dir, 'done'), '');
    })().catch((err: unknown) => {
      process.stderr.write(`allocation sampler: ${(err as Error).message}\n`);
    });
  });
}
