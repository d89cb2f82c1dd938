/**
 * Process endpoints: the Prometheus `/metrics` listener and the `/healthz`, `/readyz` probes every
 * long-running netpresence process (manager, cell, propagator) serves.
 *
 * Guarantees: `/healthz` answers 200 while the process serves; `/readyz` answers 200 once
 * `ready()` is true and 503 before; `/metrics` serves the Prometheus text of `metrics`; any other
 * path answers 404 naming it. `close()` stops both listeners.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsText, type RuntimeMetrics } from './metrics.ts';

export interface ListenAddress {
  host: string;
  port: number;
}

export interface EndpointOptions {
  metricsAddr?: ListenAddress;
  healthAddr?: ListenAddress;
  metrics: RuntimeMetrics;
  ready: () => boolean;
  /** What `/readyz` says while not ready. */
  notReadyMessage?: string;
}

export interface Endpoints {
  /** Where `/metrics` is served, when asked for. */
  metricsUrl?: string;
  /** Where `/healthz` and `/readyz` are served, when asked for. */
  healthUrl?: string;
  close(): Promise<void>;
}

type Handler = (path: string) => Promise<{ status: number; contentType: string; body: string }>;

export async function serveEndpoints(options: EndpointOptions): Promise<Endpoints> {
  const servers: Server[] = [];
  const metricsUrl =
    options.metricsAddr && (await listen(options.metricsAddr, metricsHandler(options.metrics), servers));
  const healthUrl =
    options.healthAddr &&
    (await listen(options.healthAddr, healthHandler(options.ready, options.notReadyMessage), servers));
  return {
    metricsUrl,
    healthUrl,
    close: () =>
      Promise.all(
        servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
      ).then(() => undefined),
  };
}

function metricsHandler(metrics: RuntimeMetrics): Handler {
  return async (path) =>
    path === '/metrics'
      ? { status: 200, contentType: metrics.contentType, body: await metricsText(metrics) }
      : notFound(path);
}

function healthHandler(ready: () => boolean, notReadyMessage = 'informers are not synced yet'): Handler {
  return async (path) => {
    if (path === '/healthz') return { status: 200, contentType: 'text/plain', body: 'ok' };
    if (path === '/readyz')
      return ready()
        ? { status: 200, contentType: 'text/plain', body: 'ok' }
        : { status: 503, contentType: 'text/plain', body: notReadyMessage };
    return notFound(path);
  };
}

function notFound(path: string) {
  return { status: 404, contentType: 'text/plain', body: `nothing is served at ${path}` };
}

/** Serves `handler` on `address`; resolves with its URL once listening. */
async function listen(address: ListenAddress, handler: Handler, servers: Server[]): Promise<string> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    handler(path).then(
      ({ status, contentType, body }) =>
        response.writeHead(status, { 'Content-Type': contentType }).end(body),
      (err: unknown) => response.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(err)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => resolve());
  });
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return `http://${host}:${port}`;
}
