/**
 * ServiceAccount tokens across a restart of the API server: a token from TokenRequest is signed
 * with the data directory's key, so the server restarted on that directory still accepts it, with
 * every check it had before (expiry by the plane's clock, the ServiceAccount's uid, the issuing
 * plane); another data directory's server, or any altered token, gets 401. Requests go over the
 * server's own HTTP handling (its loopback listener); a refused token answers 401, an accepted one
 * reaches RBAC, which answers 403 naming the ServiceAccount's user.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiServer } from '../server.ts';
import { SIGNING_KEY_FILE, SignedTokens } from './signed-tokens.ts';

const USER = 'system:serviceaccount:team:robot';

let nowMs = Date.parse('2026-12-03T10:00:00Z');
const now = () => new Date(nowMs);

async function start(dataDir: string, project = 'alpha'): Promise<ApiServer> {
  const server = await ApiServer.start({ dataDir, loopback: true, plane: { now } });
  server.addPlane('hub');
  server.addPlane('cell');
  server.addProjectPlane(project);
  return server;
}

interface Answer {
  code: number;
  body: Record<string, unknown>;
}

async function call(
  server: ApiServer,
  plane: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${server.loopbackUrl(plane)!}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { code: response.status, body: (await response.json()) as Record<string, unknown> };
}

const admin = (server: ApiServer, plane: string, method: string, path: string, body?: unknown) =>
  call(server, plane, server.adminToken, method, path, body);

/** A new ServiceAccount `team/robot` in `plane` (namespace created when missing). */
async function account(server: ApiServer, plane: string): Promise<void> {
  await admin(server, plane, 'POST', '/api/v1/namespaces', { metadata: { name: 'team' } });
  const created = await admin(server, plane, 'POST', '/api/v1/namespaces/team/serviceaccounts', {
    metadata: { name: 'robot' },
  });
  assert.equal(created.code, 201, JSON.stringify(created.body));
}

async function mint(server: ApiServer, plane: string, seconds = 3600): Promise<string> {
  const answer = await admin(server, plane, 'POST', '/api/v1/namespaces/team/serviceaccounts/robot/token', {
    spec: { expirationSeconds: seconds },
  });
  assert.equal(answer.code, 201, JSON.stringify(answer.body));
  return (answer.body.status as { token: string }).token;
}

/** The user `token` is taken for in `plane`, or 401. */
async function whoIn(server: ApiServer, plane: string, token: string): Promise<string | 401> {
  const answer = await call(server, plane, token, 'GET', '/api/v1/namespaces/team/configmaps');
  if (answer.code === 401) return 401;
  assert.equal(answer.code, 403, JSON.stringify(answer.body));
  return /User "([^"]+)"/.exec(String(answer.body.message))![1];
}

describe('ServiceAccount tokens across a restart', () => {
  let dir: string;
  const servers: ApiServer[] = [];
  const started = async (dataDir: string, project?: string) => {
    const server = await start(dataDir, project);
    servers.push(server);
    return server;
  };
  const restart = async (server: ApiServer, dataDir: string, project?: string) => {
    await server.stop();
    return started(dataDir, project);
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netpresence-sa-tokens-'));
  });
  after(async () => {
    for (const server of servers) await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('accepts a token after the server restarts on the same data directory', async () => {
    const data = join(dir, 'same');
    let server = await started(data);
    await account(server, 'hub');
    const token = await mint(server, 'hub');
    assert.equal(await whoIn(server, 'hub', token), USER);
    server = await restart(server, data);
    assert.equal(await whoIn(server, 'hub', token), USER);
    // A token minted after the restart is accepted too, and both survive a second restart.
    const second = await mint(server, 'hub');
    server = await restart(server, data);
    assert.equal(await whoIn(server, 'hub', token), USER);
    assert.equal(await whoIn(server, 'hub', second), USER);
    const key = await stat(join(data, SIGNING_KEY_FILE));
    assert.equal(key.mode & 0o777, 0o600, 'the signing key is readable by its owner only');
  });

  it('is refused by a server on another data directory, even one holding a ServiceAccount of that name', async () => {
    const server = await started(join(dir, 'issuer'));
    await account(server, 'hub');
    const token = await mint(server, 'hub');
    const other = await started(join(dir, 'other'));
    await account(other, 'hub');
    assert.equal(await whoIn(other, 'hub', token), 401);
    assert.equal(await whoIn(server, 'hub', token), USER);
  });

  it('refuses an altered token: another user in the payload, or a changed signature', async () => {
    const server = await started(join(dir, 'tamper'));
    await account(server, 'hub');
    const token = await mint(server, 'hub');
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = (changes: Record<string, unknown>) =>
      `${header}.${Buffer.from(JSON.stringify({ ...claims, ...changes })).toString('base64url')}.${signature}`;
    assert.equal(await whoIn(server, 'hub', forged({ sub: 'admin', groups: ['system:masters'] })), 401);
    assert.equal(await whoIn(server, 'hub', forged({ exp: (claims.exp as number) + 86_400 })), 401);
    const flipped = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    assert.equal(await whoIn(server, 'hub', `${header}.${payload}.${flipped}`), 401);
    assert.equal(await whoIn(server, 'hub', `${header}.${payload}`), 401);
    assert.equal(await whoIn(server, 'hub', token), USER);
  });

  it("refuses the token from its expiry on, by the plane's clock, before and after a restart", async () => {
    const data = join(dir, 'expiry');
    let server = await started(data);
    await account(server, 'hub');
    const token = await mint(server, 'hub', 1200);
    nowMs += 1199_000;
    server = await restart(server, data);
    assert.equal(await whoIn(server, 'hub', token), USER, 'a second before its expiry');
    nowMs += 1000;
    assert.equal(await whoIn(server, 'hub', token), 401, 'at its expiry');
    server = await restart(server, data);
    assert.equal(await whoIn(server, 'hub', token), 401, 'after a restart too');
  });

  it('refuses the token once its ServiceAccount is deleted, even when one of that name comes back', async () => {
    const data = join(dir, 'deleted');
    let server = await started(data);
    await account(server, 'hub');
    const token = await mint(server, 'hub');
    const deleted = await admin(server, 'hub', 'DELETE', '/api/v1/namespaces/team/serviceaccounts/robot');
    assert.equal(deleted.code, 200, JSON.stringify(deleted.body));
    assert.equal(await whoIn(server, 'hub', token), 401);
    await account(server, 'hub');
    assert.equal(await whoIn(server, 'hub', token), 401, 'the new ServiceAccount has another uid');
    server = await restart(server, data);
    assert.equal(await whoIn(server, 'hub', token), 401, 'after a restart too');
    assert.equal(await whoIn(server, 'hub', await mint(server, 'hub')), USER, 'its own tokens work');
  });

  it("is accepted only by the plane it was minted in, and the root's also by its project planes", async () => {
    const data = join(dir, 'planes');
    let server = await started(data);
    await account(server, 'hub');
    await account(server, 'root');
    const hubToken = await mint(server, 'hub');
    const rootToken = await mint(server, 'root');
    server = await restart(server, data);
    assert.equal(await whoIn(server, 'hub', hubToken), USER);
    assert.equal(await whoIn(server, 'cell', hubToken), 401);
    assert.equal(await whoIn(server, 'root', hubToken), 401);
    assert.equal(await whoIn(server, 'project-alpha', hubToken), 401);
    assert.equal(await whoIn(server, 'root', rootToken), USER);
    assert.equal(await whoIn(server, 'project-alpha', rootToken), USER);
    assert.equal(await whoIn(server, 'hub', rootToken), 401);
    assert.equal(await whoIn(server, 'cell', rootToken), 401);
  });
});

describe('SignedTokens', () => {
  it('verifies what its key signed and nothing signed under another key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'netpresence-signing-key-'));
    try {
      const first = await SignedTokens.load(dir);
      const again = await SignedTokens.load(dir);
      const token = first.sign({ sub: 'someone' });
      assert.deepEqual(again.verify(token), { sub: 'someone' }, 'the key is kept in the data directory');
      assert.equal((await SignedTokens.load(undefined)).verify(token), undefined);
      assert.equal((await SignedTokens.load(join(dir, 'elsewhere'))).verify(token), undefined);
      assert.equal(first.verify(`${token}x`), undefined);
      assert.equal(first.verify('not.a.token'), undefined);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
