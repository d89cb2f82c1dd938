/**
 * Watch semantics on the wire (spec/kube-api.md §7): headers at once, start points, selector
 * transitions, bookmarks only when asked, timeouts, 410 for a resume point out of the window,
 * and Table events.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { eventually, startTestServer, type TestServer } from '../support/apiserver.ts';
import { call, openWatch, type PlaneTarget } from '../support/child-server.ts';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

describe('watch', () => {
  let t: TestServer;
  let target: PlaneTarget;
  const create = async (name: string, labels: Record<string, string> = {}) =>
    JSON.parse((await call(target, 'POST', CONFIGMAPS, { metadata: { name, labels } })).body);

  before(async () => {
    t = await startTestServer(['hub'], { plane: { historyLimit: 10 }, watch: { bookmarkIntervalMs: 50 } });
    target = {
      base: t.server.url('hub'),
      token: t.server.adminToken,
      ca: t.server.certificates.caCertPem,
      agent: new Agent({ keepAlive: true }),
    };
  });
  after(async () => {
    target.agent.destroy();
    await t.stop();
  });

  it('answers with headers before any event, then replays existing objects as ADDED when no resourceVersion is given', async () => {
    await create('first');
    const events: any[] = [];
    const watch = await openWatch(target, `${CONFIGMAPS}?watch=true`, (e) => events.push(e));
    assert.equal(watch.response.statusCode, 200);
    assert.equal(watch.response.headers['content-type'], 'application/json');
    await eventually(() => (events.length >= 1 ? true : undefined));
    await create('second');
    await eventually(() => (events.length >= 2 ? true : undefined));
    watch.close();
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [
        ['ADDED', 'first'],
        ['ADDED', 'second'],
      ],
    );
  });

  it('resumes strictly after the given resourceVersion, in order', async () => {
    const a = await create('resume-a');
    await create('resume-b');
    await call(target, 'DELETE', `${CONFIGMAPS}/resume-a`);
    const events: any[] = [];
    const watch = await openWatch(
      target,
      `${CONFIGMAPS}?watch=true&resourceVersion=${a.metadata.resourceVersion}`,
      (e) => events.push(e),
    );
    await eventually(() => (events.length >= 2 ? true : undefined));
    watch.close();
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [
        ['ADDED', 'resume-b'],
        ['DELETED', 'resume-a'],
      ],
    );
    assert.ok(
      Number(events[1].object.metadata.resourceVersion) > Number(events[0].object.metadata.resourceVersion),
    );
  });

  it('reports an object leaving a label selector as DELETED and entering it as ADDED', async () => {
    const start = JSON.parse((await call(target, 'GET', CONFIGMAPS)).body).metadata.resourceVersion;
    const events: any[] = [];
    const watch = await openWatch(
      target,
      `${CONFIGMAPS}?watch=true&labelSelector=tier%3Dgold&resourceVersion=${start}`,
      (e) => events.push(e),
    );
    await create('moving', { tier: 'silver' });
    const patch = (labels: Record<string, string>) =>
      call(target, 'PATCH', `${CONFIGMAPS}/moving`, { metadata: { labels } }, 'application/merge-patch+json');
    await patch({ tier: 'gold' });
    await patch({ tier: 'gold', extra: 'x' });
    await patch({ tier: 'bronze' });
    await eventually(() => (events.length >= 3 ? true : undefined));
    watch.close();
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
  });

  it('sends BOOKMARK events only to watchers that asked for them', async () => {
    const asked: any[] = [];
    const silent: any[] = [];
    const rv = JSON.parse((await call(target, 'GET', CONFIGMAPS)).body).metadata.resourceVersion;
    const a = await openWatch(
      target,
      `${CONFIGMAPS}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`,
      (e) => asked.push(e),
    );
    const b = await openWatch(target, `${CONFIGMAPS}?watch=true&resourceVersion=${rv}`, (e) =>
      silent.push(e),
    );
    await eventually(() => (asked.some((e) => e.type === 'BOOKMARK') ? true : undefined));
    const bookmark = asked.find((e) => e.type === 'BOOKMARK');
    assert.equal(bookmark.object.kind, 'ConfigMap');
    assert.ok(Number(bookmark.object.metadata.resourceVersion) >= Number(rv));
    a.close();
    b.close();
    assert.deepEqual(silent, []);
  });

  it('ends the stream cleanly after timeoutSeconds', async () => {
    const watch = await openWatch(target, `${CONFIGMAPS}?watch=true&timeoutSeconds=1`, () => undefined);
    await new Promise<void>((resolve) => watch.response.on('end', resolve));
  });

  it('answers a resume point older than the window with an ERROR event carrying 410 Expired', async () => {
    const old = await create('old');
    for (let i = 0; i < 30; i++) await create(`filler-${i}`);
    const events: any[] = [];
    const watch = await openWatch(
      target,
      `${CONFIGMAPS}?watch=true&resourceVersion=${old.metadata.resourceVersion}`,
      (e) => events.push(e),
    );
    await new Promise<void>((resolve) => watch.response.on('end', resolve));
    assert.equal(events.length, 1);
    assert.equal(events[0].type, 'ERROR');
    assert.equal(events[0].object.code, 410);
    assert.equal(events[0].object.reason, 'Expired');
    assert.match(events[0].object.message, /too old resource version/);
  });
});
