/**
 * SQLite backend: one plane's revision log kept in one SQLite file (better-sqlite3), so that a
 * restarted server reloads every object with its resourceVersion, continues the revision
 * sequence, and resumes watches inside the same window as before.
 *
 * Guarantees:
 * - durability point: `append` returns only after its transaction is committed and the
 *   write-ahead log is fsynced (`journal_mode = WAL`, `synchronous = FULL`). RevisionLog hands a
 *   write to `append` before it becomes visible, so no write a client saw acknowledged is lost
 *   to a crash or a power loss;
 * - atomicity: one transaction per event inserts it into `events`, applies it to `objects`
 *   (upsert, or delete for DELETED) and advances `meta.revision`. A failed append leaves the file
 *   as it was, and RevisionLog then leaves its memory as it was too;
 * - compaction keeps exactly the events after `compactedThrough`, the window the in-memory log
 *   keeps, and `objects` keeps the latest state of every live object whatever was compacted;
 * - the file (and so its `-wal`) is readable and writable by its owner only (0600);
 * - one process owns the file: it is locked exclusively from `open` to `close`, and a second
 *   backend opening it is refused instead of writing a diverging history.
 *
 * Worked example (historyLimit 3): writes at revisions 1..8 leave `meta` at revision 8 with
 * compactedThrough 5, `events` holding 6, 7, 8 and `objects` the latest row of each live key
 * (a key created at 2 and never touched again keeps revision 2). `load` returns exactly that,
 * so after a restart `get` answers the same resourceVersions, the next write takes revision 9,
 * a resume from 5 replays 6, 7, 8, and a resume from 4 answers 410 as it did before.
 *
 * Caveats:
 * - while the backend is open no other connection can read the file, the sqlite3 shell
 *   included; stop the server, or copy the file and its `-wal`, to inspect it;
 * - objects are stored as JSON: a field holding `undefined` (an ADDED event's `previous`)
 *   reloads as absent;
 * - durability assumes the disk honours fsync;
 * - corruption is found where `open` and `load` read (every row of every table), not by a full
 *   integrity check: damage elsewhere, in an index say, surfaces later as a failed write.
 */
import Database from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { KubeObject } from '../objects.ts';
import type { EventType, HistoryWindow, LogBackend, StoredEvent } from './revision-log.ts';

/**
 * SQLite's own checkpoints reuse the `-wal` file but never shrink it; a TRUNCATE checkpoint
 * every this many compactions gives back what a burst of large writes made it grow to.
 */
export const COMPACTIONS_PER_CHECKPOINT = 16;

export const damagedDatabase = (path: string, problem: string): string =>
  `${path} is not a readable revision log: ${problem}. Move it and ${path}-wal aside to start ` +
  `this plane empty, or restore both from a backup.`;

/**
 * The file's content cannot be loaded: not a database, rows that do not decode, an object far
 * over the size limit. The server serves such a plane degraded (storage/salvage.ts) instead of
 * failing to start; other errors (a lock, permissions) still stop it.
 */
export class DamagedDatabaseError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
    options?: ErrorOptions,
  ) {
    super(damagedDatabase(path, problem), options);
  }
}

/** The largest stored object a plane loads, by default: 4 × the 1.5 MiB object limit. */
export const DEFAULT_MAX_LOADED_OBJECT_BYTES = 6 * 1024 * 1024;

export const inaccessibleDatabase = (path: string, problem: string): string =>
  `${path} cannot be opened: ${problem}. Check that no other netpresence process has it open ` +
  `and that this one may read and write it and its directory.`;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS meta (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    revision INTEGER NOT NULL,
    compacted_through INTEGER NOT NULL
  ) STRICT;
  INSERT OR IGNORE INTO meta (id, revision, compacted_through) VALUES (1, 0, 0);
  CREATE TABLE IF NOT EXISTS objects (
    resource TEXT NOT NULL,
    key TEXT NOT NULL,
    revision INTEGER NOT NULL,
    object TEXT NOT NULL,
    PRIMARY KEY (resource, key)
  ) STRICT;
  CREATE TABLE IF NOT EXISTS events (
    revision INTEGER PRIMARY KEY,
    type TEXT NOT NULL CHECK (type IN ('ADDED', 'MODIFIED', 'DELETED')),
    resource TEXT NOT NULL,
    key TEXT NOT NULL,
    object TEXT NOT NULL,
    previous TEXT
  ) STRICT;
`;

interface MetaRow {
  revision: number;
  compactedThrough: number;
}

interface ObjectRow {
  resource: string;
  key: string;
  revision: number;
  object: string;
}

interface EventRow extends ObjectRow {
  type: EventType;
  previous: string | null;
}

export class SqliteBackend implements LogBackend {
  private compactions = 0;
  /** How many revisions of history `load` compacted to fit the window (0: none). */
  compactedOnLoad = 0;
  private readonly readEventSizes: Database.Statement<[], { revision: number; size: number }>;
  private readonly readOversized: Database.Statement<
    [number],
    { resource: string; key: string; size: number }
  >;
  private readonly readMeta: Database.Statement<[], MetaRow>;
  private readonly readObjects: Database.Statement<[], ObjectRow>;
  private readonly readEvents: Database.Statement<[], EventRow>;
  private readonly writeEvents: Database.Transaction<(rows: EventRow[]) => void>;
  private readonly dropEvents: Database.Transaction<(revision: number) => void>;

  private constructor(
    private readonly path: string,
    private readonly db: Database.Database,
    private readonly maxLoadedObjectBytes: number,
  ) {
    this.readOversized = db.prepare(
      'SELECT resource, key, length(object) AS size FROM objects WHERE length(object) > ? LIMIT 1',
    );
    this.readMeta = db.prepare('SELECT revision, compacted_through AS compactedThrough FROM meta');
    this.readObjects = db.prepare('SELECT resource, key, revision, object FROM objects');
    this.readEventSizes = db.prepare(
      'SELECT revision, length(object) + coalesce(length(previous), 0) AS size FROM events ORDER BY revision DESC',
    );
    this.readEvents = db.prepare(
      'SELECT revision, type, resource, key, object, previous FROM events ORDER BY revision',
    );
    const insertEvent = db.prepare<EventRow>(
      'INSERT INTO events (revision, type, resource, key, object, previous) ' +
        'VALUES (@revision, @type, @resource, @key, @object, @previous)',
    );
    const putObject = db.prepare<EventRow>(
      'INSERT INTO objects (resource, key, revision, object) VALUES (@resource, @key, @revision, @object) ' +
        'ON CONFLICT (resource, key) DO UPDATE SET revision = excluded.revision, object = excluded.object',
    );
    const deleteObject = db.prepare<EventRow>(
      'DELETE FROM objects WHERE resource = @resource AND key = @key',
    );
    const setRevision = db.prepare<[number]>('UPDATE meta SET revision = ?');
    const deleteEvents = db.prepare<[number]>('DELETE FROM events WHERE revision <= ?');
    const setCompactedThrough = db.prepare<[number]>('UPDATE meta SET compacted_through = ?');
    this.writeEvents = db.transaction((rows: EventRow[]) => {
      for (const row of rows) {
        insertEvent.run(row);
        if (row.type === 'DELETED') deleteObject.run(row);
        else putObject.run(row);
      }
      setRevision.run(rows[rows.length - 1].revision);
    });
    this.dropEvents = db.transaction((revision: number) => {
      deleteEvents.run(revision);
      setCompactedThrough.run(revision);
    });
  }

  /**
   * Opens the log at `path`, creating missing parent directories, the file and its schema.
   * `load` refuses (as damaged) a file holding an object over `maxLoadedObjectBytes` encoded.
   */
  static open(path: string, maxLoadedObjectBytes = DEFAULT_MAX_LOADED_OBJECT_BYTES): SqliteBackend {
    let db: Database.Database | undefined;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      // Created 0600 (SQLite gives its -wal file the same mode), whatever the umask: a plane's
      // objects include Secrets.
      closeSync(openSync(path, 'a', 0o600));
      chmodSync(path, 0o600);
      // No busy wait: the only other holder of the lock is another server, and it keeps it.
      db = new Database(path, { timeout: 0 });
      // Before the first access, so that the lock is taken then and no shared-memory file exists.
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.exec(SCHEMA);
      return new SqliteBackend(path, db, maxLoadedObjectBytes);
    } catch (err) {
      db?.close();
      throw unreadable(path, err);
    }
  }

  /**
   * Reads the log. History older than `window` (counted from the newest event, by SQLite's own
   * lengths of the stored JSON, before any of it is decoded) is compacted first, so a file that
   * grew past the window — written by an older version, say — loads within it instead of
   * exhausting memory. When reading fails the file is closed, as nothing more can be done with it.
   */
  load(window: HistoryWindow = { events: Infinity, bytes: Infinity }): ReturnType<LogBackend['load']> {
    try {
      let meta = this.readMeta.get();
      if (!meta) throw new Error('the meta row is missing');
      // Before anything is decoded: such an object would exhaust memory, and no write stores one.
      const oversized = this.readOversized.get(this.maxLoadedObjectBytes);
      if (oversized) {
        throw new Error(
          `the object ${oversized.resource} ${oversized.key} is ${oversized.size} bytes encoded, over the ${this.maxLoadedObjectBytes} a plane loads`,
        );
      }
      const cutoff = this.cutoff(window);
      if (cutoff > meta.compactedThrough) {
        this.dropEvents(cutoff);
        // Gives the dropped pages back to the file system, once, instead of keeping the file at
        // the size the oversized history made it.
        this.db.exec('VACUUM');
        this.db.pragma('wal_checkpoint(TRUNCATE)');
        this.compactedOnLoad = cutoff - meta.compactedThrough;
        meta = this.readMeta.get()!;
      }
      return {
        revision: meta.revision,
        compactedThrough: meta.compactedThrough,
        objects: this.readObjects.all().map((row) => ({
          revision: row.revision,
          type: 'ADDED',
          resource: row.resource,
          key: row.key,
          object: JSON.parse(row.object) as KubeObject,
        })),
        history: this.readEvents.all().map(toEvent),
      };
    } catch (err) {
      this.db.close();
      throw unreadable(this.path, err);
    }
  }

  /** The revision through which history must go for the rest to fit `window` (0: none). */
  private cutoff(window: HistoryWindow): number {
    let events = 0;
    let bytes = 0;
    for (const row of this.readEventSizes.iterate()) {
      events += 1;
      bytes += row.size;
      if (events > window.events || bytes > window.bytes) return row.revision;
    }
    return 0;
  }

  append(events: StoredEvent[]): void {
    this.writeEvents(
      events.map((event) => ({
        revision: event.revision,
        type: event.type,
        resource: event.resource,
        key: event.key,
        object: JSON.stringify(event.object),
        previous: event.previous ? JSON.stringify(event.previous) : null,
      })),
    );
  }

  compact(revision: number): void {
    this.dropEvents(revision);
    this.compactions += 1;
    if (this.compactions % COMPACTIONS_PER_CHECKPOINT === 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  close(): void {
    this.db.close();
  }
}

function toEvent(row: EventRow): StoredEvent {
  const event: StoredEvent = {
    revision: row.revision,
    type: row.type,
    resource: row.resource,
    key: row.key,
    object: JSON.parse(row.object) as KubeObject,
  };
  if (row.previous !== null) event.previous = JSON.parse(row.previous) as KubeObject;
  return event;
}

/**
 * SQLite and file-system errors carry a code and, except for the two that mean the content is
 * damaged, point at the environment: a lock, permissions, a full disk. Errors without a code
 * come from decoding rows, so the content is damaged.
 */
function unreadable(path: string, err: unknown): Error {
  const problem = err instanceof Error ? err.message : String(err);
  const code = err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
  const damaged = code === undefined || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT');
  if (damaged) return new DamagedDatabaseError(path, problem, { cause: err });
  return new Error(inaccessibleDatabase(path, problem), { cause: err });
}
