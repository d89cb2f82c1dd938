import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeEventLine, RECENT_LINES } from './event-lines.ts';

const line = (name: string, resourceVersion = '1') =>
  JSON.stringify({ type: 'MODIFIED', object: { kind: 'ConfigMap', metadata: { name, resourceVersion } } });

test('an event line decodes to its JSON value', () => {
  assert.deepEqual(decodeEventLine(line('a')), {
    type: 'MODIFIED',
    object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '1' } },
  });
});

test('a line equal to a recent one, received on another watch, is the object decoded then', () => {
  const first = decodeEventLine(line('shared'));
  // A distinct string instance with the same text, as a second connection delivers it.
  const again = decodeEventLine(['', line('shared')].join(''));
  assert.equal(again, first);
  assert.notEqual(decodeEventLine(line('shared', '2')), first, 'another resourceVersion is another event');
});

test('what is remembered is bounded: a line RECENT_LINES distinct lines back is decoded anew', () => {
  const first = decodeEventLine(line('bounded'));
  for (let i = 0; i < RECENT_LINES; i++) decodeEventLine(line(`filler-${i}`));
  const later = decodeEventLine(line('bounded'));
  assert.notEqual(later, first);
  assert.deepEqual(later, first);
});

test('a line that is not JSON throws, and is not remembered', () => {
  assert.throws(() => decodeEventLine('{"type":'), SyntaxError);
  assert.throws(() => decodeEventLine('{"type":'), SyntaxError);
});
