/**
 * The embedded API server: one HTTPS listener serving many planes, each a Kubernetes API of its
 * own, so that kubectl and @kubernetes/client-node work against every plane unchanged.
 *
 * Guarantees:
 * - the root plane answers at `/`; a project plane at
 *   `/apis/resourcemanager.miloapis.com/v1alpha1/projects/<project>/control-plane`; any other
 *   plane at `/planes/<name>`. The control-plane prefix is matched before the root plane's
 *   `/apis/<group>/<version>` paths. Planes are added and removed while serving;
 * - every request but the root plane's health probes carries a bearer token of a known identity
 *   (else 401, also for a plane or project that does not exist), and RBAC in the addressed plane
 *   allows it (else 403); `Impersonate-*` headers act as the named user and groups when RBAC
 *   allows the `impersonate` verb on them (else 403). As Kubernetes' default roles
 *   `system:discovery` and `system:basic-user` do, every authenticated identity may read
 *   discovery, `/version` and OpenAPI, and create SelfSubjectAccessReviews and
 *   SelfSubjectRulesReviews; `serviceaccounts/token` (create) answers a TokenRequest;
 * - with `auditLog`, every request is recorded there as an audit.k8s.io/v1 Event (audit.ts);
 * - every failure is answered with a v1 Status; nothing is written for a refused request;
 * - `stop()` ends open watches and closes the listener.
 */
import { rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { ServerReply, ServerRequest } from './http/exchange.ts';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { pino, type Logger } from 'pino';
import {
  PROJECT_PLANE_PREFIX,
  projectControlPlanePath,
} from '../apis/resourcemanager/v1alpha1/control-plane-path.ts';
import { AuditLog, type AuditedRequest } from './audit.ts';
import { projectPlaneName } from './plane-names.ts';
import { listenLoopback, type LoopbackListener } from './loopback-listener.ts';
import { InProcessListener } from './in-process-listener.ts';
import { loadOrCreateCertificates, type ServingCertificates } from './auth/certificates.ts';
import { renderKubeconfig, type KubeconfigContext } from './auth/kubeconfig.ts';
import { selfSubjectAccessReview } from './auth/access-review.ts';
import { selfSubjectRulesReview } from './auth/rules-review.ts';
import { requestToken, serviceAccountIdentity } from './auth/token-request.ts';
import { SignedTokens } from './auth/signed-tokens.ts';
import { escalationPrevention } from './auth/escalation.ts';
import { forbiddenError, RbacAuthorizer, type RequestAttributes } from './auth/rbac.ts';
import { impersonated, impersonates } from './auth/impersonation.ts';
import { TokenAuthenticator, type Identity } from './auth/tokens.ts';
import { methodNotAllowed, pathNotFound, unauthorized } from './errors.ts';
import type { ResourceRequest } from './handlers/context.ts';
import { handleCreate } from './handlers/create.ts';
import { handleDelete } from './handlers/delete.ts';
import { handleDeleteCollection } from './handlers/delete-collection.ts';
import { apiGroup, groupList, legacyVersions, resourceList, SERVER_VERSION } from './handlers/discovery.ts';
import { handleGet } from './handlers/get.ts';
import { handleList } from './handlers/list.ts';
import { OPENAPI_V2_CONTENT_TYPE, OpenApiCache } from './handlers/openapi.ts';
import { handlePatch } from './handlers/patch.ts';
import { handleUpdate } from './handlers/update.ts';
import type { RequestDurations, TimedRequest } from './request-durations.ts';
import { DEFAULT_WATCH_SETTINGS, handleWatch, type WatchSettings } from './handlers/watch.ts';
import { decodeObjectBody, readBody, writeError, writeJson } from './http/io.ts';
import { MethodNotAllowed, parseRequest, type RequestTarget } from './http/request-info.ts';
import { readThroughStream } from './http/read-through-stream.ts';
import { DEFAULT_MAX_OBJECT_BYTES } from './limits.ts';
import { Plane, type PlaneOptions } from './plane.ts';
import { selfSubjectAccessReviews, selfSubjectRulesReviews, serviceAccounts } from './resources/builtins.ts';
import { holdUntilDurable } from './storage/durable-response.ts';
import { salvage, salvagedBackend } from './storage/salvage.ts';
import {
  DamagedDatabaseError,
  DEFAULT_MAX_LOADED_OBJECT_BYTES,
  SqliteBackend,
} from './storage/sqlite-backend.ts';

export const ROOT_PLANE = 'root';

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * `/healthz`, `/livez`, `/readyz` of a plane: ok, except the `/readyz` of a degraded plane, which
 * fails (500, as Kubernetes fails a readiness check) naming its file and the cause. Liveness stays
 * ok: restarting would not mend the file.
 */
function probe(res: ServerReply, name: string, plane: Plane): void {
  if (name === 'readyz' && plane.degraded) {
    res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    return void res.end(
      `[-]storage failed: plane ${plane.name} is read-only: ${plane.degraded.cause}\nreadyz check failed\n`,
    );
  }
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end('ok');
}
export const ADMIN_IDENTITY: Identity = { name: 'netpresence-admin', groups: ['system:masters'] };

/** Where a named plane is served: `/planes/<name>`. */
const PLANES_PREFIX = '/planes/';

export function namedPlanePath(name: string): string {
  return `${PLANES_PREFIX}${name}`;
}

export interface ApiServerOptions {
  host?: string;
  port?: number;
  /** Keeps the CA, the admin token and every plane (SQLite, `planes/<name>.db`) across restarts. */
  dataDir?: string;
  log?: Logger;
  watch?: Partial<WatchSettings>;
  plane?: PlaneOptions;
  /** Appends an audit.k8s.io/v1 Event per request here (JSON lines, level Metadata). */
  auditLog?: string;
  /** Also serve plain HTTP on 127.0.0.1 for in-process clients (loopback-listener.ts). */
  loopback?: boolean;
  /** Times every request but watches (request-durations.ts). */
  requestDurations?: RequestDurations;
}

interface PlaneEntry {
  plane: Plane;
  openapi: OpenApiCache;
  authorizer: RbacAuthorizer;
}

type ResourceTarget = Extract<RequestTarget, { kind: 'resource' }>;

function attributesOf(target: ResourceTarget): RequestAttributes {
  const isNamespace = target.group === '' && target.plural === 'namespaces';
  return {
    verb: target.verb,
    group: target.group,
    resource: target.plural,
    subresource: target.subresource,
    // As in Kubernetes, a request for the Namespace `x` is a request in namespace `x`.
    namespace: isNamespace ? target.name : target.namespace,
    name: target.name,
    resourceRequest: true,
  };
}

/** What a request's time is labelled with: its verb and resource, once it is parsed. */
function timed(target: RequestTarget | undefined): TimedRequest {
  if (target?.kind !== 'resource') return {};
  return { verb: target.verb, resource: target.plural, subresource: target.subresource };
}

/** What the audit log records of a request: its plane, user, verb and object. */
function audited(plane: string | undefined, identity?: Identity, target?: RequestTarget): AuditedRequest {
  if (target?.kind !== 'resource') return { plane, identity };
  return {
    plane,
    identity,
    verb: target.verb,
    objectRef: {
      resource: target.plural,
      ...(target.subresource && { subresource: target.subresource }),
      ...(target.namespace && { namespace: target.namespace }),
      ...(target.name && { name: target.name }),
      apiGroup: target.group,
      apiVersion: target.version,
    },
  };
}

export class ApiServer {
  readonly authenticator = new TokenAuthenticator();
  readonly log: Logger;
  private readonly planes = new Map<string, PlaneEntry>();
  private readonly byPath = new Map<string, PlaneEntry>();
  private readonly sockets = new Set<Socket>();
  private readonly watchSettings: WatchSettings;
  private server?: Server;
  /** The port bound, read once when listening (asking the socket each time costs a syscall). */
  private listeningPort?: number;
  private adminTokenValue = '';
  private readonly audit?: AuditLog;
  private loopback?: LoopbackListener;
  private inProcess?: InProcessListener;

  private constructor(
    readonly certificates: ServingCertificates,
    private readonly options: ApiServerOptions,
    /** Signs ServiceAccount tokens; its key is the data directory's, so they survive a restart. */
    private readonly serviceAccountTokens: SignedTokens,
  ) {
    this.authenticator.verifyWith((token, plane) =>
      serviceAccountIdentity(serviceAccountTokens, (name) => this.plane(name), token, plane),
    );
    this.log = options.log ?? pino({ level: process.env.LOG_LEVEL ?? 'warn' });
    this.watchSettings = { ...DEFAULT_WATCH_SETTINGS, ...options.watch };
    if (options.auditLog) this.audit = AuditLog.open(options.auditLog);
    this.addPlane(ROOT_PLANE, '');
  }

  static async start(options: ApiServerOptions = {}): Promise<ApiServer> {
    // The host it listens on is one clients reach it by (the kubeconfig names it): the serving
    // certificate must name it too. A wildcard address names no host.
    const host = options.host;
    const hosts = host && host !== '0.0.0.0' && host !== '::' ? [host] : [];
    const certificates = await loadOrCreateCertificates(options.dataDir, hosts);
    const server = new ApiServer(certificates, options, await SignedTokens.load(options.dataDir));
    await server.loadAdminToken();
    await server.listen();
    return server;
  }

  get port(): number {
    return this.listeningPort!;
  }

  get host(): string {
    return this.options.host ?? '127.0.0.1';
  }

  /** The admin identity's token (kept in the data directory when there is one). */
  get adminToken(): string {
    return this.adminTokenValue;
  }

  /** `https://<host>:<port><basePath>` of a plane. */
  url(planeName: string): string {
    const entry = this.planes.get(planeName);
    if (!entry) throw new Error(`no plane named ${planeName}`);
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `https://${host}:${this.port}${entry.plane.basePath}`;
  }

  /** `http://127.0.0.1:<port><basePath>` of a plane on the loopback listener, when it serves one. */
  loopbackUrl(planeName: string): string | undefined {
    const entry = this.planes.get(planeName);
    if (!entry) throw new Error(`no plane named ${planeName}`);
    return this.loopback && `${this.loopback.origin}${entry.plane.basePath}`;
  }

  /**
   * Serves one connection of a client in this process, given as any Duplex (an in-process
   * socket): plain HTTP, authenticated and authorised as over HTTPS (in-process-listener.ts).
   */
  acceptConnection(socket: Duplex): void {
    if (!this.inProcess) throw new Error('the API server is not started: it accepts no connection');
    this.inProcess.accept(socket);
  }

  /**
   * Serves one exchange of a client in this process (client/message-port-exchange.ts): the same
   * handler as for HTTP, so authenticated and authorised alike.
   */
  acceptExchange(req: ServerRequest, res: ServerReply): void {
    if (!this.inProcess) {
      res.destroy();
      return;
    }
    this.inProcess.serve(req, res);
  }

  plane(name: string): Plane | undefined {
    return this.planes.get(name)?.plane;
  }

  planeNames(): string[] {
    return [...this.planes.keys()];
  }

  /** Adds a plane at `basePath` (default `/planes/<name>`); an existing one is returned as is. */
  addPlane(name: string, basePath = namedPlanePath(name)): Plane {
    const existing = this.planes.get(name);
    if (existing) return existing.plane;
    if (this.byPath.has(basePath)) throw new Error(`a plane is already served at ${basePath}`);
    const { plane, backend } = this.openPlane(name, basePath);
    if (backend?.compactedOnLoad) {
      this.log.warn(
        { plane: name, revisions: backend.compactedOnLoad },
        'the stored revision log was larger than its window; the oldest history was compacted on load',
      );
    }
    plane.log.onRefused = (err, writes) =>
      this.log.error({ err, plane: name, writes }, 'writes could not be stored: undone, never acknowledged');
    const entry = {
      plane,
      openapi: new OpenApiCache(plane.catalog),
      authorizer: new RbacAuthorizer(plane.log),
    };
    plane.addAdmission(escalationPrevention(entry.authorizer));
    this.planes.set(name, entry);
    this.byPath.set(basePath, entry);
    return plane;
  }

  /**
   * Builds a plane from its database. A database whose content cannot be loaded does not stop
   * the server: the plane is built from what could be read (storage/salvage.ts) and serves it
   * read-only, saying why in an error log naming the file, in its /readyz and in every refused
   * write (503). Other planes are not affected.
   */
  private openPlane(name: string, basePath: string): { plane: Plane; backend?: SqliteBackend } {
    if (!this.options.dataDir) return { plane: new Plane(name, basePath, this.options.plane) };
    const file = this.planeDatabase(name);
    const maxObjectBytes = this.options.plane?.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
    const maxLoaded = Math.max(4 * maxObjectBytes, DEFAULT_MAX_LOADED_OBJECT_BYTES);
    let backend: SqliteBackend | undefined;
    try {
      backend = SqliteBackend.open(file, maxLoaded);
      return { plane: new Plane(name, basePath, { ...this.options.plane, backend }), backend };
    } catch (err) {
      if (!(err instanceof DamagedDatabaseError)) throw err;
      const salvaged = salvage(file, maxLoaded);
      const plane = new Plane(name, basePath, { ...this.options.plane, backend: salvagedBackend(salvaged) });
      const left = salvaged.problems.length > 0 ? `; left out: ${salvaged.problems.join('; ')}` : '';
      plane.degrade(file, `${err.message} Served: ${salvaged.state.objects.length} objects${left}.`);
      this.log.error(
        {
          plane: name,
          file,
          err,
          salvaged: { objects: salvaged.state.objects.length, problems: salvaged.problems },
        },
        'the plane could not load its database: serving what could be read, read-only',
      );
      return { plane };
    }
  }

  addProjectPlane(project: string): Plane {
    return this.addPlane(projectPlaneName(project), projectControlPlanePath(project));
  }

  /** Stops serving a plane and discards its objects (its database too, when durable). */
  removePlane(name: string): void {
    const entry = this.planes.get(name);
    if (!entry || name === ROOT_PLANE) return;
    this.planes.delete(name);
    this.byPath.delete(entry.plane.basePath);
    entry.plane.close();
    if (this.options.dataDir) {
      for (const suffix of ['', '-wal', '-shm'])
        rmSync(`${this.planeDatabase(name)}${suffix}`, { force: true });
    }
  }

  private planeDatabase(name: string): string {
    return join(this.options.dataDir!, 'planes', `${name}.db`);
  }

  /**
   * A new identity (RBAC decides per plane what it may do); returns its bearer token, accepted
   * by every plane, or only by those `acceptedBy` answers true for (as a token a plane issued).
   */
  createIdentity(name: string, groups: string[] = [], acceptedBy?: (plane: string) => boolean): string {
    return this.authenticator.mint({ name, groups }, acceptedBy);
  }

  /** A kubeconfig with one context per plane (the root plane's is `root`), all as `identityToken`. */
  kubeconfig(identityToken = this.adminToken, planeNames = this.planeNames()): string {
    const contexts: KubeconfigContext[] = planeNames.map((name) => ({
      name,
      server: this.url(name),
      token: identityToken,
    }));
    return renderKubeconfig(
      this.certificates.caCertPem,
      contexts,
      planeNames.includes(ROOT_PLANE) ? ROOT_PLANE : planeNames[0],
    );
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.inProcess?.close();
    await Promise.all([closed, this.loopback?.close()]);
    for (const { plane } of this.planes.values()) plane.close();
    await this.audit?.close();
  }

  private async loadAdminToken(): Promise<void> {
    const dir = this.options.dataDir;
    if (dir) {
      const file = join(dir, 'admin.token');
      const stored = await readFile(file, 'utf8').catch(() => undefined);
      if (stored?.trim()) {
        this.adminTokenValue = stored.trim();
        this.authenticator.register(this.adminTokenValue, ADMIN_IDENTITY);
        return;
      }
      this.adminTokenValue = this.authenticator.mint(ADMIN_IDENTITY);
      await mkdir(dir, { recursive: true });
      await writeFile(file, `${this.adminTokenValue}\n`, { mode: 0o600 });
      return;
    }
    this.adminTokenValue = this.authenticator.mint(ADMIN_IDENTITY);
  }

  private async listen(): Promise<void> {
    const server = createServer(
      { key: this.certificates.keyPem, cert: this.certificates.certPem },
      (req, res) => void this.handle(req, res),
    );
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('secureConnection', readThroughStream);
    server.keepAliveTimeout = 30_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, this.host, () => resolve());
    });
    this.listeningPort = (server.address() as AddressInfo).port;
    if (this.options.loopback)
      this.loopback = await listenLoopback((req, res) => void this.handle(req, res), server.keepAliveTimeout);
    this.inProcess = new InProcessListener((req, res) => void this.handle(req, res), server.keepAliveTimeout);
  }

  private resolvePlane(path: string): { entry: PlaneEntry; rest: string } | undefined {
    let base = '';
    if (path.startsWith(PROJECT_PLANE_PREFIX)) {
      const match =
        /^(\/apis\/resourcemanager\.miloapis\.com\/v1alpha1\/projects\/[^/]+\/control-plane)(\/.*)?$/.exec(
          path,
        );
      if (match) base = match[1];
    } else if (path.startsWith(PLANES_PREFIX)) {
      // `/planes/<name>`: up to the next slash, if any.
      const end = path.indexOf('/', PLANES_PREFIX.length);
      base = end === -1 ? path : path.slice(0, end);
    }
    const entry = this.byPath.get(base);
    if (!entry) return undefined;
    return { entry, rest: path.slice(base.length) || '/' };
  }

  private async handle(req: ServerRequest, res: ServerReply): Promise<void> {
    const started = process.hrtime.bigint();
    const url = new URL(req.url ?? '/', 'https://localhost');
    const resolved = this.resolvePlane(url.pathname);
    if (resolved?.entry.plane.log.groupCommit) holdUntilDurable(res, resolved.entry.plane.log);
    let target: RequestTarget | undefined;
    let identity: Identity | undefined;
    this.audit?.watch(req, res, () => audited(resolved?.entry.plane.name, identity, target));
    this.options.requestDurations?.time(req, res, () => timed(target));
    try {
      const authenticated = this.authenticator.authenticate(
        req.headers.authorization,
        resolved?.entry.plane.name,
      );
      // Without a token nothing tells which planes or projects exist: 401 whatever the path,
      // except the root plane's own health probes.
      if (!resolved) throw authenticated ? pathNotFound() : unauthorized();
      target = parseRequest(req.method ?? 'GET', resolved.rest, url.searchParams);
      if (target.kind === 'health' && (authenticated || resolved.entry.plane.name === ROOT_PLANE)) {
        return probe(res, target.probe, resolved.entry.plane);
      }
      if (!authenticated) throw unauthorized();
      identity = impersonates(req.headers)
        ? impersonated(resolved.entry.authorizer, authenticated, req.headersDistinct)
        : authenticated;
      if (target.kind === 'resource') this.authorize(resolved.entry, identity, target);
      await this.serve(resolved.entry, target, req, res, url.searchParams, identity);
    } catch (err) {
      const error = writeError(res, err instanceof MethodNotAllowed ? methodNotAllowed() : err);
      if (error.code === 500) this.log.error({ err, path: url.pathname }, 'request failed');
    } finally {
      if (target?.kind !== 'resource' || target.verb !== 'watch') {
        this.log.debug(
          {
            plane: resolved?.entry.plane.name,
            method: req.method,
            path: url.pathname,
            status: res.statusCode,
            ms: Number(process.hrtime.bigint() - started) / 1e6,
          },
          'request',
        );
      }
    }
  }

  private async serve(
    entry: PlaneEntry,
    target: RequestTarget,
    req: ServerRequest,
    res: ServerReply,
    query: URLSearchParams,
    identity: Identity,
  ): Promise<void> {
    const { plane, openapi } = entry;
    switch (target.kind) {
      case 'version':
        return writeJson(res, 200, SERVER_VERSION);
      case 'health':
        throw pathNotFound();
      case 'legacy-versions':
        return writeJson(res, 200, legacyVersions(`${this.host}:${this.port}`));
      case 'group-list':
        return writeJson(res, 200, groupList(plane.catalog));
      case 'group':
        return writeJson(res, 200, apiGroup(plane.catalog, target.group));
      case 'resource-list':
        return writeJson(res, 200, resourceList(plane.catalog, target.group, target.version));
      case 'openapi-v3-index':
        return writeJson(res, 200, openapi.index(), { 'Cache-Control': 'no-cache, private' });
      case 'openapi-v3': {
        const doc = openapi.document(target.group, target.version);
        const immutable = query.get('hash') === doc.hash;
        res.writeHead(200, {
          'Content-Type': 'application/json',
          'Cache-Control': immutable ? 'public, immutable' : 'no-cache, private',
          ETag: `"${doc.hash}"`,
        });
        return void res.end(doc.body);
      }
      case 'openapi-v2':
        res.writeHead(200, { 'Content-Type': OPENAPI_V2_CONTENT_TYPE, 'Content-Length': 0 });
        return void res.end();
      case 'unknown':
        throw pathNotFound();
      case 'resource':
        return this.serveResource(entry, target, req, res, query, identity);
    }
  }

  private authorize(entry: PlaneEntry, identity: Identity, target: ResourceTarget): void {
    const review = [selfSubjectAccessReviews, selfSubjectRulesReviews].some(
      (t) => target.group === t.group && target.plural === t.plural,
    );
    if (review) return;
    const attributes = attributesOf(target);
    const decision = entry.authorizer.authorize(identity, attributes);
    if (!decision.allowed) throw forbiddenError(identity, attributes, decision.reason);
  }

  private async serveResource(
    entry: PlaneEntry,
    target: ResourceTarget,
    req: ServerRequest,
    res: ServerReply,
    query: URLSearchParams,
    identity: Identity,
  ): Promise<void> {
    const plane = entry.plane;
    const type = plane.catalog.lookup(target.group, target.version, target.plural);
    if (!type) throw pathNotFound();
    if (!type.namespaced && target.namespace !== undefined) throw pathNotFound();
    if (type.namespaced && target.name !== undefined && target.namespace === undefined) throw pathNotFound();
    if (target.subresource && !type.subresources.some((s) => s.name === target.subresource))
      throw pathNotFound();
    const subresource = type.subresources.find((s) => s.name === target.subresource);
    if (target.verb === 'create' && subresource && !subresource.verbs.includes('create'))
      throw methodNotAllowed();
    if (plane.degraded && WRITE_VERBS.has(target.verb)) throw plane.log.readOnly!;
    const r: ResourceRequest = {
      req,
      res,
      plane,
      type,
      namespace: target.namespace,
      name: target.name,
      subresource: target.subresource,
      query,
      user: identity.name,
      groups: identity.groups,
      warnings: [],
    };
    if (type === selfSubjectAccessReviews) {
      if (target.verb !== 'create') throw methodNotAllowed();
      const review = decodeObjectBody(await readBody(req), req.headers['content-type']);
      return writeJson(res, 201, selfSubjectAccessReview(entry.authorizer, identity, review));
    }
    if (type === selfSubjectRulesReviews) {
      if (target.verb !== 'create') throw methodNotAllowed();
      const review = decodeObjectBody(await readBody(req), req.headers['content-type']);
      return writeJson(res, 201, selfSubjectRulesReview(entry.authorizer, identity, review));
    }
    if (type === serviceAccounts && target.subresource === 'token') {
      if (target.verb !== 'create') throw methodNotAllowed();
      const request = decodeObjectBody(await readBody(req), req.headers['content-type']);
      return writeJson(
        res,
        201,
        requestToken(plane, this.serviceAccountTokens, target.namespace!, target.name!, request),
      );
    }
    switch (target.verb) {
      case 'get':
        return handleGet(r);
      case 'list':
        return handleList(r);
      case 'watch':
        if (target.name) query.set('fieldSelector', `metadata.name=${target.name}`);
        return handleWatch(r, this.watchSettings);
      case 'create':
        return handleCreate(r);
      case 'update':
        return handleUpdate(r);
      case 'patch':
        return handlePatch(r);
      case 'delete':
        return handleDelete(r);
      case 'deletecollection':
        return handleDeleteCollection(r);
    }
  }
}
