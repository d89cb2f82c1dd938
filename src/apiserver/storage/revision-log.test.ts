import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retainedByLongerValue } from '../../../test/support/retained.ts';
import { encodedSize } from '../limits.ts';
import type { KubeObject } from '../objects.ts';
import { HISTORY_MINIMUM, RevisionLog, sizeWithRevision, type StoredEvent } from './revision-log.ts';

const object = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name }, ...extra });

describe('revision log', () => {
  it('gives every write the next plane-wide revision as its resourceVersion', () => {
    const log = new RevisionLog();
    const a = log.put('/configmaps', 'ns/a', object('a'));
    const b = log.put('example.com/widgets', 'ns/b', object('b'));
    const a2 = log.put('/configmaps', 'ns/a', object('a', { data: { x: '1' } }));
    assert.deepEqual(
      [a, b, a2].map((o) => o.metadata.resourceVersion),
      ['1', '2', '3'],
    );
    assert.equal(log.revision, 3);
  });

  it('stores an object that already carries its next revision as it is, and copies any other', () => {
    const log = new RevisionLog();
    const ready = { metadata: { name: 'a', resourceVersion: '1' }, data: { x: '1' } };
    assert.equal(log.put('/configmaps', 'ns/a', ready), ready);
    const stale = { metadata: { name: 'a', resourceVersion: '1' }, data: { x: '2' } };
    const stored = log.put('/configmaps', 'ns/a', stale);
    assert.notEqual(stored, stale);
    assert.deepEqual(stored, { metadata: { name: 'a', resourceVersion: '2' }, data: { x: '2' } });
    assert.equal(stale.metadata.resourceVersion, '1');
  });

  it('stores one copy of a value its objects repeat, however each was decoded', async () => {
    // 4,000 objects, each decoded on its own: 900-character values are 3.6 MB when each is a copy.
    const stored = (value: string) => {
      const log = new RevisionLog();
      const text = JSON.stringify({ data: { message: value } });
      for (let i = 0; i < 4000; i++)
        log.put('/configmaps', `ns/c${i}`, { metadata: { name: `c${i}` }, ...(JSON.parse(text) as object) });
      return log;
    };
    const extra = await retainedByLongerValue(stored);
    assert.ok(extra < 1_000_000, `900-character values retained ${extra} bytes more than 1-character ones`);
  });

  it('lists by namespace then name and deletes with a new revision', () => {
    const log = new RevisionLog();
    log.put('/configmaps', 'b/x', object('x'));
    log.put('/configmaps', 'a/y', object('y'));
    log.put('/configmaps', 'a/b', object('b'));
    assert.deepEqual(
      log.list('/configmaps').map((o) => o.metadata.name),
      ['b', 'y', 'x'],
    );
    assert.deepEqual(
      log.list('/configmaps', 'a').map((o) => o.metadata.name),
      ['b', 'y'],
    );
    const deleted = log.remove('/configmaps', 'a/y');
    assert.equal(deleted?.metadata.resourceVersion, '4');
    assert.equal(log.get('/configmaps', 'a/y'), undefined);
    assert.equal(log.remove('/configmaps', 'a/y'), undefined);
  });

  it('replays strictly after the resume point, then delivers live events in order', () => {
    const log = new RevisionLog();
    log.put('/configmaps', 'ns/a', object('a'));
    log.put('/configmaps', 'ns/b', object('b'));
    log.put('/secrets', 'ns/s', object('s'));
    const seen: StoredEvent[] = [];
    log.watch('/configmaps', 1, (e) => seen.push(e));
    log.remove('/configmaps', 'ns/a');
    assert.deepEqual(
      seen.map((e) => [e.type, e.object.metadata.name, e.revision]),
      [
        ['ADDED', 'b', 2],
        ['DELETED', 'a', 4],
      ],
    );
  });

  it('refuses a resume point older than the window with 410 Expired', () => {
    const log = new RevisionLog(3);
    for (let i = 0; i < 10; i++) log.put('/configmaps', `ns/c${i}`, object(`c${i}`));
    assert.ok(log.oldestResumable > 0);
    assert.throws(
      () => log.watch('/configmaps', 1, () => undefined),
      (err: any) =>
        err.code === 410 && err.reason === 'Expired' && /too old resource version: 1/.test(err.message),
    );
    const seen: number[] = [];
    log.watch('/configmaps', log.oldestResumable, (e) => seen.push(e.revision));
    assert.equal(seen.at(-1), 10);
    assert.equal(seen[0], log.oldestResumable + 1);
  });

  it('holds at most its bytes: each event counts its object, twice when it has a previous state', () => {
    const big = (i: number) => object('big', { data: { value: `${i}`.padEnd(1000, 'x') } });
    const size = encodedSize({ ...big(10), metadata: { name: 'big', resourceVersion: '10' } });
    const log = new RevisionLog(10_000, undefined, 10.5 * size);
    for (let i = 0; i < 20; i++) log.put('/configmaps', 'ns/big', big(i));
    // Twenty versions of one object: the last five, each counted with its previous state, fill
    // ten of the window's ten and a half sizes.
    assert.equal(log.oldestResumable, 15);
    const seen: number[] = [];
    log.watch('/configmaps', 15, (e) => seen.push(e.revision));
    assert.deepEqual(seen, [16, 17, 18, 19, 20]);
    assert.throws(() => log.watch('/configmaps', 14, () => undefined), /too old resource version: 14/);
  });

  it('drops events older than its age from the window, beyond its last HISTORY_MINIMUM', () => {
    let now = 0;
    const log = new RevisionLog(10_000, undefined, undefined, false, 75_000, () => now);
    const burst = HISTORY_MINIMUM * 2;
    for (let i = 0; i < burst; i++) log.put('/configmaps', `ns/burst-${i}`, object(`burst-${i}`));
    now = 80_000;
    log.put('/configmaps', 'ns/late', object('late'));
    assert.equal(log.oldestResumable, 0, 'within a quarter past the age, nothing is trimmed yet');
    now = 100_000;
    log.put('/configmaps', 'ns/later', object('later'));
    // The burst is 100 s old: all of it leaves but for the last events that make up the minimum.
    assert.equal(log.oldestResumable, burst + 2 - HISTORY_MINIMUM);
    assert.throws(
      () => log.watch('/configmaps', 1, () => undefined),
      (err: any) => err.code === 410 && err.reason === 'Expired',
    );
    const seen: string[] = [];
    log.watch('/configmaps', log.oldestResumable, (e) => seen.push(e.object.metadata.name!));
    assert.equal(seen.length, HISTORY_MINIMUM);
    assert.deepEqual(seen.slice(-2), ['late', 'later']);
    assert.equal(log.list('/configmaps').length, burst + 2, 'the objects themselves stay');
  });

  it('keeps its last HISTORY_MINIMUM events however old, so a quiet plane stays resumable', () => {
    let now = 0;
    const log = new RevisionLog(10_000, undefined, undefined, false, 75_000, () => now);
    for (let i = 0; i < HISTORY_MINIMUM; i++) {
      now += 3_600_000;
      log.put('/configmaps', `ns/c${i}`, object(`c${i}`));
    }
    assert.equal(log.oldestResumable, 0);
    const seen: number[] = [];
    log.watch('/configmaps', 0, (e) => seen.push(e.revision));
    assert.equal(seen.length, HISTORY_MINIMUM);
  });

  it('stops delivering once unsubscribed', () => {
    const log = new RevisionLog();
    const seen: number[] = [];
    const stop = log.watch('/configmaps', 0, (e) => seen.push(e.revision));
    log.put('/configmaps', 'ns/a', object('a'));
    stop();
    log.put('/configmaps', 'ns/b', object('b'));
    assert.deepEqual(seen, [1]);
    assert.equal(log.watcherCount(), 0);
  });

  it('commits a transaction with consecutive revisions and tells listeners only once all are applied', () => {
    const log = new RevisionLog();
    log.put('/configmaps', 'ns/gone', object('gone'));
    const seen: string[] = [];
    log.watch('/configmaps', log.revision, (e) => {
      seen.push(
        `${e.type} ${e.object.metadata.name} ${e.revision} ${log.get('/configmaps', 'ns/b') ? 'b-visible' : 'b-missing'}`,
      );
    });
    const results = log.transact([
      { resource: '/configmaps', key: 'ns/a', object: object('a') },
      { resource: '/configmaps', key: 'ns/gone' },
      { resource: '/configmaps', key: 'ns/b', object: object('b') },
      { resource: '/configmaps', key: 'ns/never' },
    ]);
    assert.deepEqual(
      results.map((o) => o?.metadata.resourceVersion),
      ['2', '3', '4', undefined],
    );
    assert.deepEqual(seen, ['ADDED a 2 b-visible', 'DELETED gone 3 b-visible', 'ADDED b 4 b-visible']);
  });

  it('writes nothing when the backend refuses the event', () => {
    const log = new RevisionLog(100, {
      load: () => ({ revision: 0, compactedThrough: 0, objects: [], history: [] }),
      append: () => {
        throw new Error('disk full');
      },
      compact: () => undefined,
      close: () => undefined,
    });
    assert.throws(() => log.put('/configmaps', 'ns/a', object('a')), /disk full/);
    assert.equal(log.revision, 0);
    assert.equal(log.get('/configmaps', 'ns/a'), undefined);
  });

  describe('group commit', () => {
    const recording = (refuse = false) => {
      const appended: number[][] = [];
      const backend = {
        load: () => ({ revision: 0, compactedThrough: 0, objects: [], history: [] }),
        append: (events: StoredEvent[]) => {
          if (refuse) throw new Error('disk full');
          appended.push(events.map((e) => e.revision));
        },
        compact: () => undefined,
        close: () => undefined,
      };
      return { appended, log: new RevisionLog(100, backend, undefined, true) };
    };
    const turn = () => new Promise((resolve) => setImmediate(resolve));

    it('stores the writes of one loop turn in one backend call and only then says they are durable', async () => {
      const { appended, log } = recording();
      const said: boolean[] = [];
      log.put('/configmaps', 'ns/a', object('a'));
      log.whenDurable((durable) => said.push(durable));
      log.transact([
        { resource: '/configmaps', key: 'ns/b', object: object('b') },
        { resource: '/configmaps', key: 'ns/c', object: object('c') },
      ]);
      log.whenDurable((durable) => said.push(durable));
      assert.equal(appended.length, 0, 'nothing is stored before the turn ends');
      assert.equal(said.length, 0, 'nothing is durable before it is stored');
      assert.equal(log.get('/configmaps', 'ns/b')?.metadata.resourceVersion, '2');
      await turn();
      assert.deepEqual(appended, [[1, 2, 3]]);
      assert.deepEqual(said, [true, true]);
      // The next turn's writes are the next batch; with nothing unflushed, durability is at once.
      log.put('/configmaps', 'ns/d', object('d'));
      await turn();
      assert.deepEqual(appended, [[1, 2, 3], [4]]);
      log.whenDurable((durable) => said.push(durable));
      assert.deepEqual(said, [true, true, true]);
      log.close();
    });

    it('undoes a refused batch in memory and tells the waiters it is not durable', async () => {
      const { log } = recording(true);
      const said: boolean[] = [];
      log.put('/configmaps', 'ns/a', object('a'));
      log.put('/configmaps', 'ns/a', object('a', { data: { x: '1' } }));
      log.whenDurable((durable) => said.push(durable));
      await turn();
      assert.deepEqual(said, [false]);
      assert.equal(log.revision, 0);
      assert.equal(log.get('/configmaps', 'ns/a'), undefined);
      const replayed: StoredEvent[] = [];
      log.watch('/configmaps', 0, (event) => replayed.push(event));
      assert.deepEqual(replayed, []);
      // The next write takes the revision the undone one had.
      assert.equal(log.put('/configmaps', 'ns/b', object('b')).metadata.resourceVersion, '1');
    });

    it('stores what is unflushed when closed', () => {
      const { appended, log } = recording();
      log.put('/configmaps', 'ns/a', object('a'));
      log.close();
      assert.deepEqual(appended, [[1]]);
    });
  });

  it('tells the encoded size of a stored object from its size before the revision, exactly', () => {
    const shapes: KubeObject[] = [
      { metadata: { name: 'a' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'é', namespace: 'ns' }, data: { k: '"\n' } },
      { metadata: { name: 'b', resourceVersion: '7', labels: { x: 'y' } }, spec: { n: [1, null] } },
      { metadata: { resourceVersion: undefined, name: 'c' } },
      { metadata: { name: 'd', resourceVersion: '' } },
    ];
    for (const object of shapes) {
      for (const revision of ['1', '123456789']) {
        const stored = { ...object, metadata: { ...object.metadata, resourceVersion: revision } };
        assert.equal(sizeWithRevision(object, encodedSize(object), revision), encodedSize(stored));
      }
    }
    // Not told exactly: a resourceVersion that is not digits, or no name.
    assert.equal(sizeWithRevision({ metadata: { name: 'e', resourceVersion: 'x"' } }, 10, '1'), undefined);
    assert.equal(sizeWithRevision({ metadata: {} }, 10, '1'), undefined);
  });
});
