/**
 * The entry of a controller worker: a worker thread of the fleet's process that runs the
 * controller sets it is given (controller-sets.ts) on an event loop of its own, so that they and
 * the API server use both cores. It reaches the server only over HTTP, as each set's identity —
 * over one MessagePort to the server's thread, carrying all its connections, when it is handed
 * the server's in-process connections (in-process-transport.ts).
 *
 * Guarantees: posts `started` with the `/metrics` URLs of its sets once all have started (the
 * engine's, the data plane's and the stand-ins' controllers, and the latency of every request the
 * thread's clients send, are served on a loopback endpoint of the worker's own); stops a set when
 * asked and says so (controller-worker-protocol.ts). A set that fails to start, or any error
 * nothing catches, ends the thread with that error, which the fleet's thread receives
 * (controller-workers.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { registerInProcess } from '../client/in-process.ts';
import { portClient } from '../client/message-port-socket.ts';
import { serveEndpoints } from '../runtime/endpoints.ts';
import { rootLogger } from '../runtime/logging.ts';
import { RuntimeMetrics } from '../runtime/metrics.ts';
import { LOOPBACK_METRICS, setId, startControllerSet, type RunningSet } from './controller-sets.ts';
import type { ControllerWorkerData, FromWorker, ToWorker } from './controller-worker-protocol.ts';

const data = workerData as ControllerWorkerData;
const port = parentPort!;
const post = (message: FromWorker) => port.postMessage(message);

const log = rootLogger({
  level: data.log.level as 'info',
  destination: pino.destination({ fd: data.log.fd, sync: true }),
})
  .child(data.log.bindings)
  .child({ thread: data.name });
const metrics = new RuntimeMetrics(new Registry());
// Every set's clients in this thread report their requests' latency here (served with the engine's).
metrics.observeClientRequests();
// The sets' kubeconfigs name the server's in-process origin: each connection is a MessagePort.
if (data.connections) {
  const client = portClient(data.connections.acceptor);
  registerInProcess(data.connections.origin, client.connect, client.request);
}

const running = new Map<string, RunningSet>();
const started = await Promise.all(data.sets.map((set) => startControllerSet(set, log, metrics)));
data.sets.forEach((set, i) => running.set(setId(set), started[i]));
const endpoints = data.sets.some(
  (set) => set.kind === 'engine' || set.kind === 'dataPlane' || set.kind === 'standIns',
)
  ? await serveEndpoints({ metricsAddr: LOOPBACK_METRICS, metrics, ready: () => true })
  : undefined;

port.on('message', (message: ToWorker) => {
  void (async () => {
    const set = running.get(message.set);
    running.delete(message.set);
    try {
      await set?.stop();
      if (running.size === 0) await endpoints?.close();
      post({ kind: 'stopped', set: message.set });
    } catch (err) {
      post({ kind: 'stopped', set: message.set, error: (err as Error).message });
    }
  })();
});

post({
  kind: 'started',
  metricsUrls: [...started.map((set) => set.metricsUrl), endpoints?.metricsUrl].flatMap((url) =>
    url ? [`${url}/metrics`] : [],
  ),
});
