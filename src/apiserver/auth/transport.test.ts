// The transport-security pieces together, proven with the real clients: a Node https server
// presenting the generated serving certificate and answering only authenticated requests, at the
// host root and under a plane prefix, reached through a written kubeconfig whose server carries
// that prefix, by the installed kubectl and by @kubernetes/client-node 1.4 (spec/kube-api.md §1).
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { pathNotFound, unauthorized } from '../errors.ts';
import { loadOrCreateCertificates } from './certificates.ts';
import { renderKubeconfig, writeKubeconfig } from './kubeconfig.ts';
import { TokenAuthenticator } from './tokens.ts';

const run = promisify(execFile);

const PLANE_PREFIX = '/planes/hub';
const VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0-netpresence' };
const NAMESPACES = { kind: 'NamespaceList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] };
const KUBECTL_MISSING =
  'kubectl is not on PATH: this test drives the real kubectl 1.32 against the server; install it and rerun';

interface Seen {
  /** The path as sent, plane prefix included. */
  path: string;
  user: string | undefined;
  userAgent: string | undefined;
}

/** The plane's answers, at the root and under the plane prefix alike; 401 to anyone unauthenticated. */
function answer(tokens: TokenAuthenticator, seen: Seen[], req: IncomingMessage, res: ServerResponse): void {
  const pathname = new URL(req.url ?? '/', 'https://127.0.0.1').pathname;
  const path = pathname.startsWith(`${PLANE_PREFIX}/`) ? pathname.slice(PLANE_PREFIX.length) : pathname;
  const identity = tokens.authenticate(req.headers.authorization);
  seen.push({ path: pathname, user: identity?.name, userAgent: req.headers['user-agent'] });
  if (identity === undefined) return reply(res, 401, unauthorized().toStatus());
  if (req.method === 'GET' && path === '/version') return reply(res, 200, VERSION);
  if (req.method === 'GET' && path === '/api/v1/namespaces') return reply(res, 200, NAMESPACES);
  reply(res, 404, pathNotFound().toStatus());
}

function reply(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

describe('transport security with the real clients', () => {
  let dir: string;
  let server: Server;
  let kubeconfig: string;
  let strangerKubeconfig: string;
  const seen: Seen[] = [];

  before(async () => {
    await run('kubectl', ['version', '--client', '-o', 'json']).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new Error(KUBECTL_MISSING) : err;
    });
    dir = await mkdtemp(join(tmpdir(), 'np-transport-'));
    const certs = await loadOrCreateCertificates();
    const tokens = new TokenAuthenticator();
    const token = tokens.mint({ name: 'admin', groups: ['system:masters'] });
    server = createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) =>
      answer(tokens, seen, req, res),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const hubServer = `https://127.0.0.1:${(server.address() as AddressInfo).port}${PLANE_PREFIX}`;
    kubeconfig = join(dir, 'kubeconfig');
    strangerKubeconfig = join(dir, 'stranger-kubeconfig');
    await writeKubeconfig(
      kubeconfig,
      renderKubeconfig(certs.caCertPem, [{ name: 'hub', server: hubServer, token }], 'hub'),
    );
    const stranger = {
      name: 'hub',
      server: hubServer,
      token: new TokenAuthenticator().mint({ name: 'x', groups: [] }),
    };
    await writeKubeconfig(strangerKubeconfig, renderKubeconfig(certs.caCertPem, [stranger], 'hub'));
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  /** kubectl with a HOME and cache of its own, so no discovery or HTTP cache leaks between runs. */
  async function kubectl(config: string, ...args: string[]): Promise<string> {
    const { stdout } = await run(
      'kubectl',
      ['--kubeconfig', config, '--cache-dir', join(dir, 'kube-cache'), '--request-timeout', '10s', ...args],
      { env: { ...process.env, HOME: dir, KUBECONFIG: undefined }, timeout: 30_000 },
    );
    return stdout;
  }

  /** Who made the requests for `path` under the plane prefix, as user agent and authenticated user. */
  function callers(path: string): { agent: string; user: string | undefined }[] {
    return seen
      .filter((request) => request.path === `${PLANE_PREFIX}${path}`)
      .map((request) => ({ agent: request.userAgent?.split('/')[0] ?? '', user: request.user }));
  }

  it('kubectl version reads the server version under the plane prefix, presenting the token over TLS', async () => {
    seen.length = 0;
    const version = JSON.parse(await kubectl(kubeconfig, 'version', '-o', 'json'));
    const { major, minor, gitVersion } = version.serverVersion;
    assert.deepEqual({ major, minor, gitVersion }, VERSION);
    // The gcloud dispatcher asks /version first to pick its kubectl build (spec/kube-api.md §0, surprise 7).
    assert.ok(callers('/version').some((caller) => caller.agent === 'kubectl' && caller.user === 'admin'));
    assert.ok(callers('/version').every((caller) => caller.user === 'admin'));
  });

  // client-go's Request.RequestURI replaces the server URL's path, so `--raw` paths start at the host
  // root: against a plane at /planes/hub, `get --raw /api/...` reaches whatever the root serves.
  it('kubectl get --raw takes its path from the host root, not from the plane prefix', async () => {
    seen.length = 0;
    assert.deepEqual(JSON.parse(await kubectl(kubeconfig, 'get', '--raw', '/api/v1/namespaces')), NAMESPACES);
    assert.deepEqual(
      seen.map(({ path, user }) => ({ path, user })),
      [{ path: '/api/v1/namespaces', user: 'admin' }],
    );
    seen.length = 0;
    const raw = `${PLANE_PREFIX}/api/v1/namespaces`;
    assert.deepEqual(JSON.parse(await kubectl(kubeconfig, 'get', '--raw', raw)), NAMESPACES);
    assert.deepEqual(callers('/api/v1/namespaces'), [{ agent: 'kubectl', user: 'admin' }]);
  });

  it('kubectl with a token the server never issued is told to log in', async () => {
    await assert.rejects(
      kubectl(strangerKubeconfig, 'get', '--raw', '/api/v1/namespaces'),
      (err: { stderr: string }) => {
        assert.match(err.stderr, /You must be logged in to the server/);
        return true;
      },
    );
  });

  it('client-node loads the kubeconfig and lists namespaces over TLS with the token', async () => {
    seen.length = 0;
    const config = new KubeConfig();
    config.loadFromFile(kubeconfig);
    const list = await config.makeApiClient(CoreV1Api).listNamespace();
    assert.deepEqual(callers('/api/v1/namespaces'), [{ agent: 'node-fetch', user: 'admin' }]);
    assert.equal(list.kind, 'NamespaceList');
    assert.equal(list.metadata?.resourceVersion, '1');
    assert.deepEqual(list.items, []);
  });

  it('client-node with a token the server never issued gets 401', async () => {
    const config = new KubeConfig();
    config.loadFromFile(strangerKubeconfig);
    await assert.rejects(config.makeApiClient(CoreV1Api).listNamespace(), (err: unknown) => {
      assert.ok(err instanceof ApiException);
      assert.equal(err.code, 401);
      return true;
    });
  });
});
