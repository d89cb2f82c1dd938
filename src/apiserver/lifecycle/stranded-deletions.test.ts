import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Plane } from '../plane.ts';
import type { ResourceType } from '../resources/resource-type.ts';
import type { LogBackend, StoredEvent } from '../storage/revision-log.ts';
import { SqliteBackend } from '../storage/sqlite-backend.ts';
import { createObject, deleteObject, readObject, removeFinalizer } from '../writes.ts';

const FINALIZER = 'example.com/f';

/** A backend that remembers each transaction it was handed. */
function recordingBackend(): LogBackend & { transactions: StoredEvent[][] } {
  const transactions: StoredEvent[][] = [];
  return {
    transactions,
    load: () => ({ revision: 0, compactedThrough: 0, objects: [], history: [] }),
    append: (events) => void transactions.push(events),
    compact: () => {},
    close: () => {},
  };
}

const configMapsOf = (plane: Plane): ResourceType => plane.catalog.lookup('', 'v1', 'configmaps')!;

describe('stranded deletions', () => {
  it('S133 removing the last finalizer stores the update and the removal in one transaction', async () => {
    // A durable plane commits each loop turn's writes as one group: wait for one to pass.
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const backend = recordingBackend();
    const plane = new Plane('test', '/planes/test', { backend });
    const configMaps = configMapsOf(plane);
    createObject(plane, configMaps, {
      metadata: { name: 'c', namespace: 'default', finalizers: [FINALIZER] },
    });
    const marked = deleteObject(plane, configMaps, readObject(plane, configMaps, 'default', 'c')!).object;
    await turn();
    const before = backend.transactions.length;

    removeFinalizer(plane, configMaps, marked, FINALIZER);
    await turn();

    assert.equal(backend.transactions.length, before + 1, 'one storage transaction');
    const last = backend.transactions.at(-1)!;
    assert.deepEqual(
      last.map((e) => [e.type, e.key]),
      [
        ['MODIFIED', 'default/c'],
        ['DELETED', 'default/c'],
      ],
    );
    assert.deepEqual(last[0].object.metadata.finalizers ?? [], []);
    assert.equal(readObject(plane, configMaps, 'default', 'c'), undefined);
    plane.close();
  });

  it('S133 a log that holds an object deleting without finalizers is healed when the plane opens', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'netpresence-stranded-'));
    try {
      const path = join(dir, 'hub.db');
      const plane = new Plane('hub', '/planes/hub', { backend: SqliteBackend.open(path) });
      const configMaps = configMapsOf(plane);
      for (const name of ['stranded', 'held']) {
        createObject(plane, configMaps, {
          metadata: { name, namespace: 'default', finalizers: [FINALIZER] },
        });
        deleteObject(plane, configMaps, readObject(plane, configMaps, 'default', name)!);
      }
      // What an older version left after a kill between its two transactions.
      const stranded = plane.log.get(configMaps.storage, 'default/stranded')!;
      plane.log.put(configMaps.storage, 'default/stranded', {
        ...stranded,
        metadata: { ...stranded.metadata, finalizers: undefined },
      });
      plane.close();

      const reopened = new Plane('hub', '/planes/hub', { backend: SqliteBackend.open(path) });
      assert.equal(readObject(reopened, configMaps, 'default', 'stranded'), undefined);
      const held = readObject(reopened, configMaps, 'default', 'held')!;
      assert.ok(held.metadata.deletionTimestamp);
      assert.deepEqual(held.metadata.finalizers, [FINALIZER]);
      assert.ok(readObject(reopened, reopened.catalog.lookup('', 'v1', 'namespaces')!, undefined, 'default'));
      reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
