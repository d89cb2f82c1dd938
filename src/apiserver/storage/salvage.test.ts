import assert from 'node:assert/strict';
import { readFileSync, statSync, truncateSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { RevisionLog } from './revision-log.ts';
import { salvage } from './salvage.ts';
import { DamagedDatabaseError, SqliteBackend } from './sqlite-backend.ts';

const object = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name }, ...extra });

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'netpresence-salvage-test-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A plane file holding configmaps a, b and c (revisions 1–3), closed. */
async function storedPlane(): Promise<string> {
  const path = join(await mkdtemp(join(root, 'case-')), 'hub.db');
  const log = new RevisionLog(100, SqliteBackend.open(path));
  for (const name of ['a', 'b', 'c'])
    log.put('/configmaps', `ns/${name}`, object(name, { data: { v: name } }));
  log.close();
  return path;
}

function update(path: string, key: string, value: string): void {
  const db = new Database(path);
  db.prepare('UPDATE objects SET object = ? WHERE key = ?').run(value, key);
  db.close();
}

describe('salvage', () => {
  it('refuses, as damaged and before decoding it, a file holding an object over the size a plane loads', async () => {
    const path = await storedPlane();
    update(path, 'ns/b', JSON.stringify(object('b', { data: { v: 'x'.repeat(2000) } })));
    assert.throws(
      () => new RevisionLog(100, SqliteBackend.open(path, 1000)),
      (err: Error) =>
        err instanceof DamagedDatabaseError &&
        /the object \/configmaps ns\/b is \d+ bytes encoded, over the 1000 a plane loads/.test(err.message),
    );
  });

  it('returns every row that decodes within the size, at its revision, names the others, and returns no history', async () => {
    const path = await storedPlane();
    update(path, 'ns/a', '{"metadata": ');
    update(path, 'ns/b', JSON.stringify(object('b', { data: { v: 'x'.repeat(2000) } })));
    const before = readFileSync(path);
    const { state, problems } = salvage(path, 1000);
    assert.deepEqual(
      state.objects.map((e) => [e.key, e.revision]),
      [['ns/c', 3]],
    );
    assert.equal(state.revision, 3);
    assert.equal(state.compactedThrough, 3);
    assert.deepEqual(state.history, []);
    assert.equal(problems.length, 2);
    assert.match(problems[0], /^the object \/configmaps ns\/a does not decode: /);
    assert.match(
      problems[1],
      /^the object \/configmaps ns\/b is \d+ bytes encoded, over the 1000 a plane loads$/,
    );
    assert.ok(readFileSync(path).equals(before), 'the file is left as it was');
  });

  it('salvages nothing from a file SQLite cannot read, and says why instead of throwing', async () => {
    const path = await storedPlane();
    truncateSync(path, Math.floor(statSync(path).size / 3));
    const { state, problems } = salvage(path, 1000);
    assert.equal(state.objects.length, 0);
    assert.ok(problems.length > 0);
  });
});
