import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planeOfKey, projectObjectKeyFromString, projectObjectKeyString } from './project-object-key.ts';

describe('project object keys', () => {
  it('round-trip every name, and name their plane', () => {
    const key = { project: 'project-alpha', namespace: 'default', name: 'a/b"c' };
    assert.deepEqual(projectObjectKeyFromString(projectObjectKeyString(key)), key);
    assert.equal(planeOfKey(key), 'project-project-alpha');
  });

  it('refuse strings that are not keys', () => {
    assert.throws(() => projectObjectKeyFromString('["a","b"]'), /project, namespace and name/);
    assert.throws(() => projectObjectKeyFromString('[1,2,3]'), /project, namespace and name/);
  });
});
