/**
 * The dashboard (`netpresence dashboard`, and `netpresence up` by default): the informers of
 * sources.ts, the trace reader over the same kubeconfig, and the HTTP server of server.ts.
 *
 * Guarantees: the server listens only once the informers have listed (or `SYNC_WAIT_MS` passed:
 * an unreachable plane does not keep the page away, it shows what is known), and
 * `startDashboard` resolves then; it refuses a non-loopback listen address without a token; `stop()` closes the server,
 * then every informer.
 */
import type { Logger } from 'pino';
import type { Clock } from '../runtime/clock.ts';
import { KubeconfigPlaneReader } from '../trace/kubeconfig-reader.ts';
import { isLoopback, serverMessages, startDashboardServer, type DashboardServer } from './server.ts';
import { DashboardSources } from './sources.ts';

export const SYNC_WAIT_MS = 10_000;

export interface DashboardOptions {
  kubeconfigPath: string;
  host: string;
  port: number;
  token?: string;
  /** The processes' Prometheus `/metrics` URLs, scraped for the throughput charts. */
  metricsUrls?: readonly string[];
  clock: Clock;
  log: Logger;
}

export interface Dashboard {
  url: string;
  stop(): Promise<void>;
}

export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  if (!isLoopback(options.host) && !options.token)
    throw new Error(serverMessages.tokenRequired(options.host));
  const log = options.log.child({ component: 'dashboard' });
  // The sources tell the server of changes; the server needs the sources to start.
  const live: { server?: DashboardServer } = {};
  const sources = new DashboardSources({
    kubeconfigPath: options.kubeconfigPath,
    clock: options.clock,
    log,
    onChange: () => live.server?.changed(),
  });
  sources.start();
  // Listening once the stores are filled: a page never sees a half-listed fleet, and what it
  // fetches on (re)connecting is what the planes hold.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    sources.synced(),
    new Promise((resolve) => (timer = setTimeout(resolve, SYNC_WAIT_MS))),
  ]).finally(() => clearTimeout(timer));
  const server = (live.server = await startDashboardServer({
    sources,
    reader: new KubeconfigPlaneReader(options.kubeconfigPath),
    host: options.host,
    port: options.port,
    token: options.token,
    metricsUrls: options.metricsUrls,
    log,
  }));
  log.info({ url: server.url }, 'dashboard is up');
  return {
    url: server.url,
    async stop() {
      await server.stop();
      await sources.stop();
    },
  };
}
