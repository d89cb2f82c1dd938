/**
 * Transport: one HTTP request to a plane, addressed and authenticated as its kubeconfig says.
 *
 * Guarantees: client-node supplies the TLS trust, client certificates, proxy agent and
 * credentials (bearer token, basic auth, exec and auth-provider plugins) — asked again for every
 * request when they may change (a plugin, a file), once per cluster and user when they cannot;
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
import type { Cluster, KubeConfig, User } from '@kubernetes/client-node';
import * as http from 'node:http';
import * as https from 'node:https';
import { statusErrorFrom } from './errors.ts';
import { inProcessAgent, inProcessExchange } from './in-process.ts';
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

/**
 * What every request to a kubeconfig's current cluster as its current user shares: the server's
 * URL without its trailing slashes, parsed once, and — when the user's credentials are fixed
 * (a token, a username and password or inline certificate data, no exec or auth-provider plugin
 * and no file that client-node reads again on each request) — the request options client-node
 * derives from them. client-node's `applyToHTTPSOptions` builds a new agent and decodes the CA and
 * certificates on every call: in the controller worker of a 1,000-binding burst that, and a URL
 * parsed and written out again per request, was 7 % of the thread's work (bench/README.md,
 * session 20). A user whose credentials may change between requests is asked of client-node on
 * each, as before.
 */
interface Target {
  cluster: Cluster;
  user: User | null;
  /** The server URL without trailing slashes: a request's path is appended to it. */
  base: string;
  /** `base`, parsed: its host names the server in metrics, its origin an in-process server. */
  url: URL;
  /** The server URL's path without trailing slashes ('' at the root): an exchange's path starts with it. */
  basePath: string;
  /** The options client-node derives from fixed credentials (its agent dropped); none when they may change. */
  credentials?: https.RequestOptions;
  /** With fixed credentials, the key of their keep-alive agents (`agentKey`), once computed. */
  agentKey?: string;
}

const targets = new WeakMap<KubeConfig, Target>();

function targetOf(kubeConfig: KubeConfig): Target {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error(NO_CLUSTER);
  const user = kubeConfig.getCurrentUser();
  const known = targets.get(kubeConfig);
  if (known?.cluster === cluster && known.user === user) return known;
  const base = cluster.server.replace(/\/+$/, '');
  const url = new URL(base);
  const target: Target = { cluster, user, base, url, basePath: url.pathname.replace(/\/+$/, '') };
  targets.set(kubeConfig, target);
  return target;
}

/** Whether client-node derives the same options from these credentials on every request. */
function fixedCredentials(cluster: Cluster, user: User | null): boolean {
  return !cluster.caFile && !user?.exec && !user?.authProvider && !user?.certFile && !user?.keyFile;
}

/**
 * The credentials' request options (headers, TLS material), with client-node's agent only for a
 * cluster behind a proxy (its proxy agent; everywhere else transport.ts keeps its own agents).
 */
async function credentialOptions(kubeConfig: KubeConfig, target: Target): Promise<https.RequestOptions> {
  const options: https.RequestOptions = { headers: {} };
  await kubeConfig.applyToHTTPSOptions(options);
  if (target.cluster.proxyUrl) return options;
  delete options.agent;
  if (fixedCredentials(target.cluster, target.user)) target.credentials = options;
  return options;
}

/** The query as `URLSearchParams` writes it, with its `?`; empty when nothing is set. */
function searchOf(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined) params.append(key, String(value));
  const search = params.toString();
  return search === '' ? '' : `?${search}`;
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
  const target = targetOf(kubeConfig);
  const answered = request.longLived ? undefined : requestStarted(request.method, target.url.host);
  // The JSON text itself: an exchange writes its UTF-8 straight into the link's batch, HTTP into the socket.
  const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
  const payloadBytes = payload === undefined ? 0 : Buffer.byteLength(payload);
  const credentials = target.credentials ?? (await credentialOptions(kubeConfig, target));
  const search = searchOf(request.query);
  const exchange = inProcessExchange(target.url);
  if (exchange) {
    const head = {
      method: request.method,
      url: target.basePath + request.path + search,
      headers: exchangeHeaders(credentials, request, payload === undefined ? undefined : payloadBytes),
    };
    const response = await exchange(head, payload).response;
    answered?.();
    return response;
  }
  const agent = userAgent();
  // Spread last: a literal that goes on after a spread (`{...a, b}`) was twenty times slower.
  const headers = {
    Accept: 'application/json',
    ...(agent && { 'User-Agent': agent }),
    ...(payload !== undefined && {
      'Content-Type': request.contentType ?? 'application/json',
      'Content-Length': payloadBytes,
    }),
    ...credentials.headers,
  };
  const options: https.RequestOptions = Object.assign({}, credentials, { method: request.method, headers });
  const url = new URL(target.base + request.path + search);
  const inProcess = inProcessAgent(url, request.longLived ?? false);
  if (inProcess) options.agent = inProcess;
  else if (!target.cluster.proxyUrl) {
    const key = target.credentials ? (target.agentKey ??= agentKey(url, options)) : agentKey(url, options);
    options.agent = keepAliveAgent(key, url, options, request.longLived ? watchAgents : agents);
  }
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

/**
 * The headers an exchange carries: those HTTP would (the credentials' and basic credentials as an
 * `authorization` header), named in lower case as a server reads them. Built as a literal that
 * the credentials' headers are then copied into: a literal that goes on after a spread
 * (`{...credentials, accept}`) cost twenty times more, as much as the rest of the request's
 * preparation together.
 */
function exchangeHeaders(
  credentials: https.RequestOptions,
  request: PlaneRequest,
  payloadBytes: number | undefined,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> =
    payloadBytes !== undefined
      ? {
          accept: 'application/json',
          'content-type': request.contentType ?? 'application/json',
          'content-length': String(payloadBytes),
        }
      : { accept: 'application/json' };
  const agent = userAgent();
  if (agent) headers['user-agent'] = agent;
  return Object.assign(headers, credentialHeaders(credentials));
}

const credentialHeadersOf = new WeakMap<https.RequestOptions, Record<string, string | string[]>>();

/** The credentials' headers in lower case, basic credentials included; once per credentials object. */
function credentialHeaders(credentials: https.RequestOptions): Record<string, string | string[]> {
  let headers = credentialHeadersOf.get(credentials);
  if (!headers) {
    headers = {};
    for (const [name, value] of Object.entries(credentials.headers ?? {}))
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value : String(value);
    if (credentials.auth && headers.authorization === undefined)
      headers.authorization = `Basic ${Buffer.from(credentials.auth).toString('base64')}`;
    credentialHeadersOf.set(credentials, headers);
  }
  return headers;
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

/** The protocol and TLS identity of a request, as a key of the keep-alive agents. */
function agentKey(url: URL, options: https.RequestOptions): string {
  return [
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
}

/** One keep-alive agent per protocol and TLS identity (`key`) in `pool`, shared by the requests that have it. */
function keepAliveAgent(
  key: string,
  url: URL,
  options: https.RequestOptions,
  pool: Map<string, http.Agent>,
): http.Agent {
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
  const text = (await wholeBody(response)).toString('utf8');
  if (text === '') return undefined;
  try {
    const body: unknown = JSON.parse(text);
    return intern ? internStrings(body) : body;
  } catch {
    return text;
  }
}

/**
 * The response's body, whole. One that has all arrived is taken from the stream's buffer in one
 * read — an exchange's has, by the time its head is handled, since a batch carries the head, the
 * body and the end together — instead of through an async iterator: in the controller worker of
 * a 10,000-binding burst the iterator and the stream's work behind it were about 4 s of CPU.
 */
async function wholeBody(response: PlaneResponse): Promise<Buffer> {
  if (response.complete) return (response.read() as Buffer | null) ?? EMPTY_BODY;
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const EMPTY_BODY = Buffer.alloc(0);

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
