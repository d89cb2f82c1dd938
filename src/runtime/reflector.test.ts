import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import type { KubeObject, ResourceId } from '../client/types.ts';
import { FakeResource, statusError } from '../../test/support/fake-resource-client.ts';
import { FakeClock } from './clock.ts';
import type { InformerEvent } from './informer-contract.ts';
import { Reflector, type ReflectorSettings } from './reflector.ts';
import { Store } from './store.ts';

const CONFIGMAPS: ResourceId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
const silent = pino({ level: 'silent' });

function configMap(name: string, value = name): KubeObject {
  return { metadata: { name, namespace: 'default' }, data: { value } };
}

function setup(settings: ReflectorSettings = {}) {
  const clock = new FakeClock(1_000_000);
  const resource = new FakeResource(CONFIGMAPS);
  const client = resource.client();
  const store = new Store();
  const events: InformerEvent[] = [];
  const reflector = new Reflector({
    plane: 'root',
    client,
    store,
    clock,
    log: silent,
    random: () => 1,
    onChange: (event) => events.push(event),
    ...settings,
  });
  const summary = () => events.map((e) => `${e.type} ${e.object.metadata.name}`);
  const names = () => store.list().map((o) => o.metadata.name);
  return { clock, resource, client, store, events, reflector, summary, names };
}

describe('Reflector', () => {
  it('lists in pages of 500 and is synced only once every page is in the store', async () => {
    const { clock, resource, reflector, store } = setup();
    for (let i = 0; i < 1200; i++) resource.put(configMap(`cm-${String(i).padStart(4, '0')}`));
    let synced = false;
    void reflector.synced().then(() => (synced = true));
    reflector.start();
    await clock.advance(0);
    assert.equal(synced, true);
    assert.equal(store.size, 1200);
    assert.deepEqual(
      resource.listCalls.map((call) => [call.limit, call.continue !== undefined]),
      [
        [500, false],
        [500, true],
        [500, true],
      ],
    );
    assert.equal(resource.watchCalls[0].resourceVersion, '1200');
    assert.equal(resource.watchCalls[0].allowWatchBookmarks, true);
    await reflector.stop();
  });

  it('resumes from the last event or bookmark after the stream ends, without listing again', async () => {
    const { clock, resource, reflector, summary } = setup();
    resource.put(configMap('a'));
    reflector.start();
    await clock.advance(0);
    resource.put(configMap('b'));
    resource.bookmark();
    assert.equal(reflector.lastResourceVersion, '2');
    resource.put(configMap('other', 'x'));
    resource.endWatches();
    await clock.advance(100);
    assert.equal(resource.listCalls.length, 1);
    assert.deepEqual(
      resource.watchCalls.map((call) => call.resourceVersion),
      ['1', '3'],
    );
    assert.deepEqual(summary(), ['ADDED a', 'ADDED b', 'ADDED other']);
    await reflector.stop();
  });

  it('relists on a 410 ERROR event and reports the deletions that happened while away', async () => {
    const { clock, resource, reflector, summary, names, events } = setup();
    for (const name of ['a', 'b', 'c']) resource.put(configMap(name));
    reflector.start();
    await clock.advance(0);
    resource.endWatches(new Error('connection reset'));
    resource.remove('default', 'a');
    resource.put(configMap('b', 'changed'));
    resource.put(configMap('d'));
    resource.compact();
    events.length = 0;

    await clock.advance(100); // the resume answers 410 Expired
    assert.equal(resource.listCalls.length, 1);
    await clock.advance(200); // the relist
    assert.equal(resource.listCalls.length, 2);
    assert.deepEqual(summary(), ['MODIFIED b', 'ADDED d', 'DELETED a']);
    assert.deepEqual(names(), ['b', 'c', 'd']);
    assert.equal(resource.openWatches, 1);
    assert.equal(resource.watchCalls.at(-1)!.resourceVersion, String(resource.revision));
    await reflector.stop();
  });

  it('relists when the watch request itself is refused with 410 Gone', async () => {
    const { clock, resource, reflector } = setup();
    resource.put(configMap('a'));
    reflector.start();
    await clock.advance(0);
    resource.endWatches(statusError(410, 'Gone'));
    await clock.advance(100);
    assert.equal(resource.listCalls.length, 2);
    await reflector.stop();
  });

  it('reconnects with exponential backoff while failing, and starts over after a healthy watch', async () => {
    const { clock, resource, client, reflector } = setup({
      backoff: { initialMs: 100, maxMs: 1000, resetAfterMs: 60_000 },
    });
    const attempts: number[] = [];
    const watch = client.watch.bind(client);
    client.watch = (...args) => {
      attempts.push(clock.now());
      return watch(...args);
    };
    reflector.start();
    await clock.advance(0);
    client.offline = new Error('connect ECONNREFUSED');
    resource.endWatches(client.offline);
    const brokeAt = clock.now();
    await clock.advance(3000);
    const gaps = attempts.slice(1).map((at, i) => at - (i === 0 ? brokeAt : attempts[i]));
    assert.deepEqual(gaps, [100, 200, 400, 800, 1000]);

    client.offline = undefined;
    await clock.advance(1000);
    assert.equal(resource.openWatches, 1);
    await clock.advance(60_000);
    resource.endWatches();
    const endedAt = clock.now();
    await clock.advance(100);
    assert.equal(attempts.at(-1)! - endedAt, 100);
    await reflector.stop();
  });

  it('retries a failed list with backoff and is synced only after a list succeeds', async () => {
    const { clock, reflector, client } = setup();
    client.listFailures.push(statusError(500, 'InternalError'));
    let synced = false;
    void reflector.synced().then(() => (synced = true));
    reflector.start();
    await clock.advance(99);
    assert.equal(synced, false);
    await clock.advance(1);
    assert.equal(synced, true);
    await reflector.stop();
  });

  it('replaces a watch that stayed silent longer than the watchdog, but not one that gets bookmarks', async () => {
    const { clock, resource, reflector } = setup({ watchdogMs: 300_000 });
    reflector.start();
    await clock.advance(0);
    await clock.advance(240_000);
    resource.bookmark();
    await clock.advance(240_000);
    assert.equal(resource.watchCalls.length, 1);
    await clock.advance(60_000); // 300 s since the bookmark
    assert.equal(resource.openWatches, 0);
    await clock.advance(100);
    assert.equal(resource.watchCalls.length, 2);
    assert.equal(resource.openWatches, 1);
    await reflector.stop();
  });

  it('gives up on a watch request that never answers, and closes it if it answers later', async () => {
    const { clock, resource, client, reflector } = setup({ watchdogMs: 300_000 });
    const watch = client.watch.bind(client);
    let answer: (() => void) | undefined;
    let lateHandleAborted = false;
    client.watch = (...args) => {
      if (answer) return watch(...args);
      return new Promise((resolve) => {
        answer = () => resolve({ abort: () => (lateHandleAborted = true) });
      });
    };
    reflector.start();
    await clock.advance(300_000 + 100);
    assert.equal(resource.openWatches, 1);
    answer!();
    await clock.advance(0);
    assert.equal(lateHandleAborted, true);
    await reflector.stop();
  });

  it('stop closes the watch, clears every timer and reports nothing after', async () => {
    const { clock, resource, reflector, events } = setup();
    reflector.start();
    await clock.advance(0);
    await reflector.stop();
    assert.equal(resource.openWatches, 0);
    assert.equal(clock.pending(), 0);
    resource.put(configMap('late'));
    await clock.advance(1000);
    assert.deepEqual(events, []);
  });

  it('stop ends a backoff at once, and a list page in flight, leaving no timer', async () => {
    const { clock, client, reflector } = setup();
    client.offline = new Error('connect ECONNREFUSED');
    reflector.start();
    await clock.advance(0);
    assert.equal(clock.pending(), 1, 'the backoff before the next list');
    await reflector.stop();
    assert.equal(clock.pending(), 0);

    const second = setup();
    second.client.list = () => new Promise(() => undefined);
    second.reflector.start();
    await second.clock.advance(0);
    assert.equal(second.clock.pending(), 1, "the list's watchdog");
    await second.reflector.stop();
    assert.equal(second.clock.pending(), 0);
    await assert.rejects(second.reflector.synced(), /stopped before its first list/);
  });

  it('rejects synced when stopped before the first list', async () => {
    const { reflector, client } = setup();
    client.offline = new Error('connect ECONNREFUSED');
    reflector.start();
    await reflector.stop();
    await assert.rejects(reflector.synced(), /stopped before its first list/);
  });
});
