import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinTypes } from '../resources/builtins.ts';
import { watchEventLine } from './watch-event.ts';

const configMaps = builtinTypes.find((t) => t.kind === 'ConfigMap')!;
const stored = (name: string) => ({
  metadata: { name, namespace: 'ns', resourceVersion: '7' },
  data: { a: '1' },
});

describe('watch event lines', () => {
  it('are the JSON line each watcher would have written', () => {
    const object = stored('a');
    assert.equal(
      watchEventLine(configMaps, 'MODIFIED', object),
      `${JSON.stringify({ type: 'MODIFIED', object: { apiVersion: 'v1', kind: 'ConfigMap', ...object } })}\n`,
    );
  });

  it('are the same for the same stored object and event type, and differ by event type and object', () => {
    const object = stored('b');
    const first = watchEventLine(configMaps, 'ADDED', object);
    assert.equal(watchEventLine(configMaps, 'ADDED', object), first);
    assert.match(watchEventLine(configMaps, 'DELETED', object), /^\{"type":"DELETED"/);
    // Another object with the same name is another write: its own line.
    const next = { ...object, data: { a: '2' } };
    assert.match(watchEventLine(configMaps, 'ADDED', next), /"a":"2"/);
  });
});
