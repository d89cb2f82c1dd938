/**
 * Salvage: what a plane's SQLite file still holds that can be served, read-only, when the file
 * cannot be loaded as it is (sqlite-backend.ts refused it as damaged) — so that the server
 * starts anyway instead of crash-looping on its own data.
 *
 * Guarantees:
 * - the file is only read: it and its `-wal` are copied to a temporary directory and the copy is
 *   read (SQLite cannot read a WAL file without writing beside it), so the file is never written,
 *   compacted or checkpointed and whatever an operator does next starts from it as it was;
 * - every `objects` row that decodes to an object and is within `maxLoadedObjectBytes` is
 *   returned at its own revision; a row over that size is never read (SQLite measures it);
 * - no history is returned: the revision is the stored one (or the highest row's) and
 *   `compactedThrough` equals it, so a watch resuming from before it answers 410 and a fresh
 *   list-and-watch works;
 * - it never throws: a file SQLite cannot read at all salvages nothing, and says why.
 * `problems` names what was left out (at most 10, then how many more).
 */
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../objects.ts';
import type { LogBackend, StoredEvent } from './revision-log.ts';

export interface Salvaged {
  state: ReturnType<LogBackend['load']>;
  /** What could not be read, worded for an operator. */
  problems: string[];
}

const LISTED_PROBLEMS = 10;

interface Row {
  resource: string;
  key: string;
  revision: number;
  size: number;
  object: string | null;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function salvage(path: string, maxLoadedObjectBytes: number): Salvaged {
  const objects: StoredEvent[] = [];
  const problems: string[] = [];
  let extra = 0;
  const problem = (text: string) => {
    if (problems.length < LISTED_PROBLEMS) problems.push(text);
    else extra += 1;
  };
  let revision = 0;
  let db: Database.Database | undefined;
  const copyDir = mkdtempSync(join(tmpdir(), 'netpresence-salvage-'));
  try {
    const copy = join(copyDir, 'plane.db');
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
    db = new Database(copy, { fileMustExist: true, timeout: 0 });
    db.pragma('locking_mode = EXCLUSIVE');
    try {
      const meta = db.prepare('SELECT revision FROM meta').get() as { revision?: unknown } | undefined;
      if (typeof meta?.revision === 'number') revision = meta.revision;
    } catch (err) {
      problem(`the meta row cannot be read: ${message(err)}`);
    }
    const rows = db
      .prepare(
        'SELECT resource, key, revision, length(object) AS size, ' +
          'CASE WHEN length(object) <= ? THEN object END AS object FROM objects',
      )
      .iterate(maxLoadedObjectBytes) as IterableIterator<Row>;
    for (const row of rows) {
      const where = `the object ${row.resource} ${row.key}`;
      if (row.object === null) {
        problem(`${where} is ${row.size} bytes encoded, over the ${maxLoadedObjectBytes} a plane loads`);
        continue;
      }
      let object: unknown;
      try {
        object = JSON.parse(row.object);
      } catch (err) {
        problem(`${where} does not decode: ${message(err)}`);
        continue;
      }
      const metadata = (object as KubeObject | null)?.metadata;
      if (
        typeof object !== 'object' ||
        object === null ||
        typeof metadata !== 'object' ||
        metadata === null
      ) {
        problem(`${where} is not an object with metadata`);
        continue;
      }
      revision = Math.max(revision, row.revision);
      objects.push({
        revision: row.revision,
        type: 'ADDED',
        resource: row.resource,
        key: row.key,
        object: object as KubeObject,
      });
    }
  } catch (err) {
    problem(`the objects cannot be read: ${message(err)}`);
  } finally {
    db?.close();
    rmSync(copyDir, { recursive: true, force: true });
  }
  if (extra > 0) problems.push(`and ${extra} more`);
  return { state: { revision, compactedThrough: revision, objects, history: [] }, problems };
}

/** A backend that hands the salvaged state to the revision log and stores nothing anywhere. */
export function salvagedBackend(salvaged: Salvaged): LogBackend {
  return {
    load: () => salvaged.state,
    append: () => undefined,
    compact: () => undefined,
    close: () => undefined,
  };
}
