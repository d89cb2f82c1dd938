import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.ts';
import { worksWoken } from './drift.ts';

function copy(managed: boolean, work = 'default-dfw-855f9b568d'): KubeObject {
  return {
    metadata: {
      name: 'default-dfw',
      namespace: 'ns-a',
      labels: managed ? { 'karmada.io/managed': 'true' } : {},
      annotations: { 'work.karmada.io/namespace': 'karmada-es-cell-dfw-1', 'work.karmada.io/name': work },
    },
  };
}

const KEY = { namespace: 'karmada-es-cell-dfw-1', name: 'default-dfw-855f9b568d' };

describe('drift mapping', () => {
  it('counts an add or delete of a managed copy, and maps it to its Work', () => {
    assert.deepEqual(worksWoken({ type: 'ADDED', object: copy(true) }), [KEY]);
    assert.deepEqual(worksWoken({ type: 'DELETED', object: copy(true) }), [KEY]);
    assert.deepEqual(worksWoken({ type: 'ADDED', object: copy(false) }), []);
    assert.deepEqual(worksWoken({ type: 'DELETED', object: copy(false) }), []);
  });

  it('counts an update when the copy was managed before it, even if the update removed the label', () => {
    assert.deepEqual(worksWoken({ type: 'MODIFIED', object: copy(false), previous: copy(true) }), [KEY]);
    assert.deepEqual(worksWoken({ type: 'MODIFIED', object: copy(true), previous: copy(false) }), []);
  });

  it('ignores objects that name no Work', () => {
    const bare: KubeObject = { metadata: { name: 'x', labels: { 'karmada.io/managed': 'true' } } };
    assert.deepEqual(worksWoken({ type: 'ADDED', object: bare }), []);
  });

  it('wakes both Works when an update moved the copy to another Work', () => {
    const keys = worksWoken({ type: 'MODIFIED', object: copy(true, 'other'), previous: copy(true) });
    assert.deepEqual(keys, [KEY, { ...KEY, name: 'other' }]);
  });
});
