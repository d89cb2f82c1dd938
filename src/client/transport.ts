/**
 * Transport: one HTTP request to a plane, addressed and authenticated as its kubeconfig says.
 *
 * Guarantees: client-node supplies the TLS trust, client certificates, proxy agent and
 * credentials (bearer token, basic auth, exec and auth-provider plugins, refreshed per request);
 * a request path is appended to the path of the cluster's server URL, as client-go does, so a
 * plane served under a prefix (`https://host:port/planes/hub`) is addressed like a cluster at
 * the root. `send` resolves with the parsed body of a 2xx response and rejects every other
 * status with the typed error of its Status body (errors.ts). A read's parsed body has its
 * repeated strings interned (interned-strings.ts), so the objects a cache keeps (a reflector's
 * list) share their values; a write's response and an error's Status, which no cache keeps, are
 * not: interning them was a third of the controller worker's interning (bench/README.md).
 * Connections are kept alive and reused: client-node builds a new agent per call, so this module
 * keeps one keep-alive agent per distinct TLS identity (server trust, client certificate,
 * verification) and uses it instead, except behind a proxy, where client-node's proxy agent is
 * kept; watches have agents of their own. A request whose reused idle connection the server had
 * just closed (ECONNRESET before any response) is sent once more on a fresh connection: the
 * server never read it. A server in this process (in-process.ts) is reached through its
 * registered connector: the same HTTP, over a Duplex in place of a socket — or, from a worker
 * thread, as an exchange (message-port-exchange.ts): the same request and response, not encoded
 * as HTTP, with the same headers (credentials included).
 * Caveat: requests have no timeout of their own, like client-node's, so a hung server hangs them.
 */
import { userAgent } from './user-agent.ts';
import { internStrings } from '../apis/common/interned-strings.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import * as http from 'node:http';
import * as https from 'node:https';
import { statusErrorFrom } from './errors.ts';
import { inProcessAgent, inProcessExchange, type Exchange } from './in-process.ts';
import { requestStarted } from './request-latency.ts';

export type Query = Record<string, string | number | boolean | undefined>;

export interface PlaneRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** From the API root: `/api/v1/…` or `/apis/<group>/<version>/…`. */
  path: string;
  query?: Query;
  body?: unknown;
  /** The body's media type; JSON when omitted. */
  contentType?: string;
  /** A watch: its connection stays busy for the watch's whole life. */
  longLived?: boolean;
}

export const NO_CLUSTER = 'the kubeconfig has no current cluster: set a current context that names one';

function urlOf(kubeConfig: KubeConfig, path: string, query: Query = {}): URL {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error(NO_CLUSTER);
  const url = new URL(cluster.server.replace(/\/+$/, '') + path);
  for (const [key, value] of Object.entries(query))
    if (value !== undefined) url.searchParams.set(key, String(value));
  return url;
}

/** A response of any status, its body readable: `node:http`'s, or an exchange's (the same surface). */
export interface PlaneResponse extends NodeJS.ReadableStream {
  statusCode?: number;
  headers: http.IncomingHttpHeaders;
  /** Whether the whole body arrived. */
  complete: boolean;
  socket: { setKeepAlive(enable: boolean, delayMs: number): unknown };
  destroy(error?: Error): unknown;
  on(event: 'close', listener: () => void): this;
  on(event: string | symbol, listener: (...args: unknown[]) => void): this;
}

/** Issues the request and resolves with the response of any status, its body unread. */
export async function open(kubeConfig: KubeConfig, request: PlaneRequest): Promise<PlaneResponse> {
  const url = urlOf(kubeConfig, request.path, request.query);
  const answered = request.longLived ? undefined : requestStarted(request.method, url.host);
  const payload = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
  const agent = userAgent();
  const options: https.RequestOptions = {
    method: request.method,
    headers: {
      Accept: 'application/json',
      ...(agent && { 'User-Agent': agent }),
      ...(payload && {
        'Content-Type': request.contentType ?? 'application/json',
        'Content-Length': payload.length,
      }),
    },
  };
  await kubeConfig.applyToHTTPSOptions(options);
  const exchange = inProcessExchange(url);
  if (exchange) {
    const response = await exchanged(exchange, url, options, payload);
    answered?.();
    return response;
  }
  const inProcess = inProcessAgent(url, request.longLived ?? false);
  if (inProcess) options.agent = inProcess;
  else if (!kubeConfig.getCurrentCluster()?.proxyUrl)
    options.agent = keepAliveAgent(url, options, request.longLived ? watchAgents : agents);
  const transport = url.protocol === 'http:' ? http : https;
  const attempt = (retryOnReset: boolean): Promise<http.IncomingMessage> =>
    new Promise((resolve, reject) => {
      const req = transport.request(url, options, (response) => {
        answered?.();
        resolve(response);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (retryOnReset && req.reusedSocket && err.code === 'ECONNRESET') resolve(attempt(false));
        else reject(err);
      });
      req.end(payload);
    });
  return attempt(true);
}

/** Sends the request as an exchange, with the headers (and basic credentials) HTTP would carry. */
function exchanged(
  exchange: Exchange,
  url: URL,
  options: https.RequestOptions,
  payload: Buffer | undefined,
): Promise<PlaneResponse> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value : String(value);
  }
  if (options.auth && headers.authorization === undefined)
    headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
  const method = options.method ?? 'GET';
  return exchange({ method, url: url.pathname + url.search, headers }, payload).response;
}

/**
 * Agents for requests, and apart from them agents for watches: an agent files each busy
 * connection in one list per server and finds it there by a linear search whenever a request
 * ends, so thousands of watches held open in the requests' agent made every request cost a
 * search through all of them.
 */
const agents = new Map<string, http.Agent>();
const watchAgents = new Map<string, http.Agent>();

/** A TLS option as text: a Buffer by its base64 (JSON would spell every byte as a number). */
function keyPart(value: unknown): string {
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(keyPart).join(',');
  if (value === undefined) return '';
  return JSON.stringify(value);
}

/** One keep-alive agent per protocol and TLS identity in `pool`, shared by every request that has it. */
function keepAliveAgent(url: URL, options: https.RequestOptions, pool: Map<string, http.Agent>): http.Agent {
  const key = [
    url.protocol,
    options.rejectUnauthorized,
    options.servername,
    options.ca,
    options.cert,
    options.key,
    options.pfx,
    options.passphrase,
  ]
    .map(keyPart)
    .join('\0');
  let agent = pool.get(key);
  if (!agent) {
    agent =
      url.protocol === 'http:'
        ? new http.Agent({ keepAlive: true })
        : new https.Agent({
            keepAlive: true,
            ca: options.ca,
            cert: options.cert,
            key: options.key,
            pfx: options.pfx,
            passphrase: options.passphrase,
            rejectUnauthorized: options.rejectUnauthorized,
            servername: options.servername,
          });
    pool.set(key, agent);
  }
  return agent;
}

/** The body parsed (text when it is not JSON), its strings interned when `intern`. */
async function readBody(response: PlaneResponse, intern = false): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    const body: unknown = JSON.parse(text);
    return intern ? internStrings(body) : body;
  } catch {
    return text;
  }
}

/** The typed error for a response that is not 2xx, its body read. */
export async function errorOf(response: PlaneResponse): Promise<Error> {
  return statusErrorFrom(response.statusCode ?? 0, await readBody(response));
}

/** Resolves with the parsed body of a 2xx response; rejects with a StatusError otherwise. */
export async function send(kubeConfig: KubeConfig, request: PlaneRequest): Promise<unknown> {
  const response = await open(kubeConfig, request);
  const status = response.statusCode ?? 0;
  if (status < 200 || status > 299) throw await errorOf(response);
  return readBody(response, request.method === 'GET');
}
