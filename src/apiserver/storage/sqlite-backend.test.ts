import assert from 'node:assert/strict';
import { statSync, truncateSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { RevisionLog } from './revision-log.ts';
import {
  COMPACTIONS_PER_CHECKPOINT,
  SqliteBackend,
  damagedDatabase,
  inaccessibleDatabase,
} from './sqlite-backend.ts';

const object = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name }, ...extra });

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'netpresence-sqlite-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A database path whose parent directories do not exist yet. */
const newPath = async () => join(await mkdtemp(join(root, 'case-')), 'planes', 'hub.db');

/** Runs `use` on a plain connection; only once no backend holds the file. */
function withDatabase<T>(path: string, use: (db: Database.Database) => T): T {
  const db = new Database(path);
  try {
    return use(db);
  } finally {
    db.close();
  }
}

const rowCount = (path: string, table: string): number =>
  withDatabase(path, (db) => db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()!.n);

describe('sqlite backend', () => {
  it('keeps every object with its resourceVersion across a reopen, and the next write takes the next revision', async () => {
    const path = await newPath();
    const log = new RevisionLog(100, SqliteBackend.open(path));
    log.put('/configmaps', 'ns/a', object('a'));
    const widget = log.put('example.com/widgets', '/w', object('w'));
    const a = log.put('/configmaps', 'ns/a', object('a', { data: { x: '1' } }));
    log.close();

    const reopened = new RevisionLog(100, SqliteBackend.open(path));
    assert.deepEqual(reopened.get('/configmaps', 'ns/a'), a);
    assert.deepEqual(reopened.get('example.com/widgets', '/w'), widget);
    assert.equal(reopened.revision, 3);
    assert.equal(reopened.put('/configmaps', 'ns/b', object('b')).metadata.resourceVersion, '4');
    reopened.close();
  });

  it('keeps deleted objects deleted across a reopen', async () => {
    const path = await newPath();
    const log = new RevisionLog(100, SqliteBackend.open(path));
    log.put('/configmaps', 'ns/a', object('a'));
    const b = log.put('/configmaps', 'ns/b', object('b'));
    log.remove('/configmaps', 'ns/a');
    log.close();

    const reopened = new RevisionLog(100, SqliteBackend.open(path));
    assert.equal(reopened.get('/configmaps', 'ns/a'), undefined);
    assert.deepEqual(reopened.list('/configmaps'), [b]);
    assert.equal(reopened.revision, 3);
    reopened.close();
  });

  it('resumes a watch after a reopen from inside the window and refuses one below it with 410', async () => {
    const path = await newPath();
    const log = new RevisionLog(4, SqliteBackend.open(path));
    for (let i = 1; i <= 10; i++) log.put('/configmaps', `ns/c${i}`, object(`c${i}`));
    const oldest = log.oldestResumable;
    assert.ok(oldest > 0);
    log.close();

    const reopened = new RevisionLog(4, SqliteBackend.open(path));
    assert.equal(reopened.oldestResumable, oldest);
    const seen: [string, string | undefined, number][] = [];
    reopened.watch('/configmaps', oldest, (e) => seen.push([e.type, e.object.metadata.name, e.revision]));
    reopened.put('/configmaps', 'ns/c1', object('c1', { data: { x: '1' } }));
    const replayed: [string, string, number][] = [];
    for (let revision = oldest + 1; revision <= 10; revision++)
      replayed.push(['ADDED', `c${revision}`, revision]);
    assert.deepEqual(seen, [...replayed, ['MODIFIED', 'c1', 11]]);
    assert.throws(
      () => reopened.watch('/configmaps', oldest - 1, () => undefined),
      (err: any) =>
        err.code === 410 &&
        err.reason === 'Expired' &&
        err.message === `too old resource version: ${oldest - 1} (${oldest + 1})`,
    );
    reopened.close();
  });

  it('bounds the events table to the watch window by compaction', async () => {
    const path = await newPath();
    const log = new RevisionLog(4, SqliteBackend.open(path));
    for (let i = 0; i < 50; i++) log.put('/configmaps', `ns/c${i % 5}`, object(`c${i % 5}`, { data: { i } }));
    const window = log.revision - log.oldestResumable;
    log.close();

    assert.equal(rowCount(path, 'events'), window);
    assert.ok(window <= 5);
    assert.equal(rowCount(path, 'objects'), 5);
  });

  it(`truncates the write-ahead log every ${COMPACTIONS_PER_CHECKPOINT} compactions`, async () => {
    const path = await newPath();
    const backend = SqliteBackend.open(path);
    for (let revision = 1; revision <= COMPACTIONS_PER_CHECKPOINT; revision++) {
      const key = `ns/c${revision}`;
      backend.append([{ revision, type: 'ADDED', resource: '/configmaps', key, object: object(key) }]);
      if (revision < COMPACTIONS_PER_CHECKPOINT) backend.compact(revision);
    }
    assert.ok(statSync(`${path}-wal`).size > 0);
    backend.compact(COMPACTIONS_PER_CHECKPOINT);
    assert.equal(statSync(`${path}-wal`).size, 0);
    backend.close();
  });

  it('leaves neither the event nor the object behind when the database refuses a write part-way', async () => {
    const path = await newPath();
    SqliteBackend.open(path).close();
    // The revision update is the last statement of an append, so the event and object rows
    // before it must be rolled back.
    withDatabase(path, (db) =>
      db.exec(
        `CREATE TRIGGER refuse BEFORE UPDATE OF revision ON meta BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
      ),
    );
    const log = new RevisionLog(100, SqliteBackend.open(path));
    assert.throws(() => log.put('/configmaps', 'ns/a', object('a')), /disk full/);
    assert.equal(log.revision, 0);
    assert.equal(log.get('/configmaps', 'ns/a'), undefined);
    log.close();

    assert.equal(rowCount(path, 'events'), 0);
    assert.equal(rowCount(path, 'objects'), 0);
    const reopened = new RevisionLog(100, SqliteBackend.open(path));
    assert.equal(reopened.revision, 0);
    reopened.close();
  });

  it('stores a transaction of several changes all together, or none of them', async () => {
    const path = await newPath();
    const log = new RevisionLog(100, SqliteBackend.open(path));
    log.put('/configmaps', 'ns/old', object('old'));
    const results = log.transact([
      { resource: '/configmaps', key: 'ns/a', object: object('a') },
      { resource: '/secrets', key: 'ns/b', object: object('b') },
      { resource: '/configmaps', key: 'ns/old' },
    ]);
    assert.deepEqual(
      results.map((o) => o?.metadata.resourceVersion),
      ['2', '3', '4'],
    );
    log.close();
    withDatabase(path, (db) =>
      db.exec(
        `CREATE TRIGGER refuse BEFORE INSERT ON objects WHEN NEW.key = 'ns/d' BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
      ),
    );
    const reopened = new RevisionLog(100, SqliteBackend.open(path));
    assert.deepEqual(
      reopened.list('/configmaps').map((o) => o.metadata.name),
      ['a'],
    );
    assert.equal(reopened.revision, 4);
    assert.throws(
      () =>
        reopened.transact([
          { resource: '/configmaps', key: 'ns/c', object: object('c') },
          { resource: '/configmaps', key: 'ns/d', object: object('d') },
        ]),
      /disk full/,
    );
    assert.equal(reopened.revision, 4);
    assert.equal(reopened.get('/configmaps', 'ns/c'), undefined);
    reopened.close();
    assert.equal(rowCount(path, 'events'), 4);
  });

  it('names a file that is not a database and says what to do', async () => {
    const path = await newPath();
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, 'not a database '.repeat(512));
    assert.throws(() => SqliteBackend.open(path), {
      message: damagedDatabase(path, 'file is not a database'),
    });
  });

  it('names a database found damaged while loading and says what to do', async () => {
    const path = await newPath();
    const log = new RevisionLog(10_000, SqliteBackend.open(path));
    for (let i = 0; i < 500; i++)
      log.put('/configmaps', `ns/c${i}`, object(`c${i}`, { data: { pad: 'x'.repeat(500) } }));
    log.close();
    truncateSync(path, Math.floor(statSync(path).size / 2));

    assert.throws(() => new RevisionLog(10_000, SqliteBackend.open(path)), {
      message: damagedDatabase(path, 'database disk image is malformed'),
    });
  });

  it('refuses to open a file another backend holds, and opens it once released', async () => {
    const path = await newPath();
    const first = SqliteBackend.open(path);
    assert.throws(() => SqliteBackend.open(path), {
      message: inaccessibleDatabase(path, 'database is locked'),
    });
    first.close();
    SqliteBackend.open(path).close();
  });
});
