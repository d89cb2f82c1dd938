import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tupleKey } from './tuple-key.ts';

const pair = tupleKey('a pair key', ['namespace', 'objectName']);

describe('tuple keys', () => {
  it('write the parts in order as a JSON array, and read them back whatever the names hold', () => {
    const key = { namespace: 'default', objectName: 'a/b"c,d' };
    assert.equal(pair.toString(key), '["default","a/b\\"c,d"]');
    assert.deepEqual(pair.fromString(pair.toString(key)), key);
  });

  it('never give two different keys one string', () => {
    assert.notEqual(
      pair.toString({ namespace: 'a,b', objectName: 'c' }),
      pair.toString({ namespace: 'a', objectName: 'b,c' }),
    );
  });

  it('refuse anything but an array of that many strings, naming the key and its parts in words', () => {
    for (const text of ['["a"]', '["a","b","c"]', '["a",1]', '{"namespace":"a","objectName":"b"}'])
      assert.throws(() => pair.fromString(text), {
        message: `a pair key is a JSON array of namespace and object name, got ${text}`,
      });
    assert.throws(() => pair.fromString('not json'), SyntaxError);
  });
});
