import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import type { PlaneReader } from '../trace/reader.ts';
import { COOKIE, serverMessages, startDashboardServer } from './server.ts';
import type { DashboardSources } from './sources.ts';

const empty = { list: () => [], get: () => undefined, byIndex: () => [] };
const sources = {
  platform: { locations: empty, events: empty, projects: empty },
  hub: {
    namespaces: empty,
    bindings: empty,
    contexts: empty,
    subnets: empty,
    policies: empty,
    clusters: empty,
    events: empty,
  },
  projectNames: () => [],
  project: () => undefined,
  cellNames: () => [],
  cell: () => undefined,
} as unknown as DashboardSources;
const reader = {} as PlaneReader;
const log = pino({ level: 'silent' });

describe('dashboard server', () => {
  it('refuses to listen off loopback without a token', async () => {
    await assert.rejects(
      startDashboardServer({ sources, reader, host: '0.0.0.0', port: 0, log }),
      new RegExp(serverMessages.tokenRequired('0.0.0.0').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    );
  });

  it('with a token, asks for it once and then keeps it in an HttpOnly, SameSite=Strict cookie', async () => {
    const server = await startDashboardServer({
      sources,
      reader,
      host: '127.0.0.1',
      port: 0,
      token: 's3cret',
      log,
    });
    try {
      assert.equal((await fetch(`${server.url}api/overview`)).status, 401);
      assert.match(await (await fetch(server.url)).text(), /Dashboard token/);
      const wrong = await fetch(`${server.url}login`, {
        method: 'POST',
        body: new URLSearchParams({ token: 'guess' }),
        redirect: 'manual',
      });
      assert.equal(wrong.status, 401);
      const right = await fetch(`${server.url}login`, {
        method: 'POST',
        body: new URLSearchParams({ token: 's3cret' }),
        redirect: 'manual',
      });
      assert.equal(right.status, 303);
      const cookie = right.headers.get('set-cookie') ?? '';
      assert.match(cookie, new RegExp(`^${COOKIE}=s3cret;`));
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Strict/);
      const overview = await fetch(`${server.url}api/overview`, {
        headers: { cookie: cookie.split(';')[0] },
      });
      assert.equal(overview.status, 200);
      assert.deepEqual(((await overview.json()) as { rows: unknown[] }).rows, []);
    } finally {
      await server.stop();
    }
  });

  it('serves nothing but reads: a write verb is refused', async () => {
    const server = await startDashboardServer({ sources, reader, host: '127.0.0.1', port: 0, log });
    try {
      assert.equal((await fetch(`${server.url}api/overview`, { method: 'DELETE' })).status, 405);
    } finally {
      await server.stop();
    }
  });
});
