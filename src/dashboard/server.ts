/**
 * The dashboard's HTTP server: the page and its bundled assets, a read-only JSON API over the
 * informer stores, and a Server-Sent Events stream that tells the page when anything changed.
 *
 * Guarantees:
 * - read-only: only GET is served, but for `POST /login`;
 * - listening on anything but loopback needs a token file: `startDashboardServer` refuses
 *   without one; with a token every request but the login page and `POST /login` needs the
 *   `netpresence-dashboard` cookie (HttpOnly, SameSite=Strict), which `POST /login` sets once
 *   the token matches (compared in constant time);
 * - a change in any store reaches every open stream within `CHANGE_DEBOUNCE_MS` (well within a
 *   second) as `event: change`; a new stream is sent only `retry: 1000` (the browser reconnects
 *   after 1 s when cut; the page refetches whenever its stream opens);
 * - the overview is aggregated once per change, not once per request.
 * Caveat: assets are read from `dist/dashboard` (npm run build:dashboard); without them the page
 * says how to build them.
 */
import { timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { PlaneReader } from '../trace/reader.ts';
import { bindingTrace, cellDetail, pairDetail, warningEvents } from './details.ts';
import { buildOverview, queryOverview, type Overview } from './overview.ts';
import type { DashboardSources } from './sources.ts';
import { Throughput } from './throughput.ts';
import type { OverviewResponse } from './view-types.ts';

export const CHANGE_DEBOUNCE_MS = 100;
export const COOKIE = 'netpresence-dashboard';
/** Beside this module once compiled (dist/dashboard/), else where a checkout bundles them. */
export const ASSETS_DIR = new URL(
  import.meta.url.endsWith('.js') ? './' : '../../dist/dashboard/',
  import.meta.url,
).pathname;

export const serverMessages = {
  tokenRequired: (host: string) =>
    `--listen ${host} is not a loopback address: give --token-file with the token a user must enter, or listen on 127.0.0.1`,
  emptyToken: (path: string) => `--token-file ${path} is empty: write the token into it`,
  assetsMissing: 'the dashboard assets are not built: run npm run build:dashboard',
};

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

export interface DashboardServerOptions {
  sources: DashboardSources;
  reader: PlaneReader;
  host: string;
  port: number;
  token?: string;
  log: Logger;
  assetsDir?: string;
  /** The processes' Prometheus `/metrics` URLs the throughput charts are scraped from. */
  metricsUrls?: readonly string[];
}

export interface DashboardServer {
  url: string;
  /** Call when a store changed; streams hear of it within CHANGE_DEBOUNCE_MS. */
  changed(): void;
  stop(): Promise<void>;
}

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>netpresence</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/app.css">
</head>
<body>
<div id="app"><p>Loading…</p></div>
<script type="module" src="/assets/app.js"></script>
</body>
</html>
`;

const LOGIN_HTML = (failed: boolean) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>netpresence — sign in</title><link rel="icon" href="data:,"></head>
<body>
<main>
<h1>netpresence dashboard</h1>
<form method="post" action="/login">
<label for="token">Dashboard token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<button type="submit">Open</button>
${failed ? '<p role="alert">That token is not the dashboard token.</p>' : ''}
</form>
</main>
</body>
</html>
`;

function cookieOf(request: IncomingMessage): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
      if (body.length > 10_000) request.destroy();
    });
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

const numberOr = (value: string | null): number | undefined =>
  value ? Number(value) || undefined : undefined;

export async function startDashboardServer(options: DashboardServerOptions): Promise<DashboardServer> {
  const { sources, reader, log, token } = options;
  if (!isLoopback(options.host) && !token) throw new Error(serverMessages.tokenRequired(options.host));
  const assetsDir = options.assetsDir ?? ASSETS_DIR;
  const streams = new Set<ServerResponse>();
  const throughput = new Throughput(options.metricsUrls ?? []);
  let version = 0;
  let cached: { version: number; overview: Overview; projects: string[]; networks: string[] } | undefined;
  let pending: NodeJS.Timeout | undefined;
  // The overview and its filter choices are computed once per change, not per request.
  const current = () => {
    if (cached?.version !== version) {
      const built = buildOverview(sources);
      cached = {
        version,
        overview: built,
        projects: [...new Set(built.rows.map((r) => r.project))],
        networks: [...new Set(built.rows.map((r) => r.network))].sort(),
      };
    }
    return cached;
  };
  const overview = () => current().overview;
  const changed = () => {
    pending ??= setTimeout(() => {
      pending = undefined;
      version++;
      for (const stream of streams) stream.write(`event: change\ndata: ${version}\n\n`);
    }, CHANGE_DEBOUNCE_MS);
  };
  const sampler = setInterval(() => void throughput.sample(Date.now()), 1000);
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(': heartbeat\n\n');
  }, 15_000);

  async function asset(response: ServerResponse, name: string, type: string): Promise<void> {
    try {
      const body = await readFile(join(assetsDir, name));
      response.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache' });
      response.end(body);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end(serverMessages.assetsMissing);
    }
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://dashboard');
    const signedIn = !token || sameToken(cookieOf(request), token);
    if (request.method === 'POST' && url.pathname === '/login' && token) {
      const given = new URLSearchParams(await readBody(request)).get('token') ?? '';
      if (!sameToken(given, token)) {
        response.writeHead(401, { 'content-type': 'text/html; charset=utf-8' });
        response.end(LOGIN_HTML(true));
        return;
      }
      response.writeHead(303, {
        location: '/',
        'set-cookie': `${COOKIE}=${encodeURIComponent(given)}; HttpOnly; SameSite=Strict; Path=/`,
      });
      response.end();
      return;
    }
    if (request.method !== 'GET') {
      response.writeHead(405, { allow: 'GET' });
      response.end();
      return;
    }
    if (!signedIn) {
      if (url.pathname.startsWith('/api/'))
        return json(response, 401, { message: 'sign in with the dashboard token' });
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(LOGIN_HTML(false));
      return;
    }
    const q = url.searchParams;
    switch (url.pathname) {
      case '/':
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(INDEX_HTML);
        return;
      case '/assets/app.js':
        return asset(response, 'app.js', 'text/javascript; charset=utf-8');
      case '/assets/app.css':
        return asset(response, 'app.css', 'text/css; charset=utf-8');
      case '/api/overview': {
        const body: OverviewResponse = {
          version,
          ...queryOverview(overview(), {
            project: q.get('project') ?? undefined,
            network: q.get('network') ?? undefined,
            location: q.get('location') ?? undefined,
            state: q.get('state') ?? undefined,
            search: q.get('search') ?? undefined,
            page: numberOr(q.get('page')),
            pageSize: numberOr(q.get('pageSize')),
          }),
          projects: current().projects,
          networks: current().networks,
        };
        return json(response, 200, body);
      }
      case '/api/pair':
        return json(
          response,
          200,
          pairDetail(sources, {
            hubNamespace: q.get('hubNamespace') ?? '',
            network: q.get('network') ?? '',
            location: q.get('location') ?? '',
          }),
        );
      case '/api/trace':
        return json(
          response,
          200,
          await bindingTrace(reader, { namespace: q.get('namespace') ?? '', name: q.get('name') ?? '' }),
        );
      case '/api/cell': {
        const detail = cellDetail(sources, q.get('name') ?? '');
        return detail
          ? json(response, 200, detail)
          : json(response, 404, { message: `no cell "${q.get('name')}"` });
      }
      case '/api/events':
        return json(response, 200, { events: warningEvents(sources) });
      case '/api/throughput':
        return json(response, 200, throughput.view());
      case '/api/stream':
        response.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-store',
          connection: 'keep-alive',
        });
        // Only the retry: what changed before the stream opened, the page fetches on opening.
        response.write('retry: 1000\n\n');
        streams.add(response);
        request.on('close', () => streams.delete(response));
        return;
      default:
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('not found');
    }
  }

  const server: Server = createServer((request, response) => {
    route(request, response).catch((err: Error) => {
      log.error({ err }, 'dashboard request failed');
      if (!response.headersSent) json(response, 500, { message: err.message });
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/`,
    changed,
    async stop() {
      clearInterval(sampler);
      clearInterval(heartbeat);
      if (pending) clearTimeout(pending);
      for (const stream of streams) stream.end();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
