import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeFileAtomic } from './atomic-file.ts';

describe('atomic file', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'np-atomic-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates missing parent directories and writes the file with exactly the given mode', async () => {
    const path = join(await mkdtemp(join(dir, 'case-')), 'a', 'b', 'secret');
    await writeFileAtomic(path, 'content', 0o600);
    assert.equal(await readFile(path, 'utf8'), 'content');
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });

  it('replaces an existing file, narrows its mode, and leaves no temporary file behind', async () => {
    const caseDir = await mkdtemp(join(dir, 'case-'));
    const path = join(caseDir, 'replaced');
    await writeFile(path, 'old', { mode: 0o644 });
    await writeFileAtomic(path, 'new', 0o600);
    assert.equal(await readFile(path, 'utf8'), 'new');
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.deepEqual(await readdir(caseDir), ['replaced']);
  });

  it('leaves the target untouched and no temporary file behind when the rename fails', async () => {
    const caseDir = await mkdtemp(join(dir, 'case-'));
    const target = join(caseDir, 'occupied');
    await writeFileAtomic(join(target, 'inside'), 'x', 0o600);
    await assert.rejects(writeFileAtomic(target, 'y', 0o600));
    assert.deepEqual(await readdir(target), ['inside']);
    assert.deepEqual(await readdir(caseDir), ['occupied']);
  });
});
