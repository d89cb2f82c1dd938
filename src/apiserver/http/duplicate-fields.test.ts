import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { duplicateFields } from './duplicate-fields.ts';

/** The character-by-character scanner this module had before (session 8), kept as the reference. */
const reference = (() => {
  interface ReferenceFrame {
    array: boolean;
    path: string;
    keys: Set<string>;
    index: number;
    /** The key just read, awaiting its value. */
    key?: string;
  }

  function referenceChildPath(frame: ReferenceFrame): string {
    if (frame.array) return `${frame.path}[${frame.index}]`;
    return frame.path ? `${frame.path}.${frame.key}` : frame.key!;
  }

  function referenceDuplicateFields(text: string): string[] {
    const found: string[] = [];
    const stack: ReferenceFrame[] = [];
    let i = 0;
    while (i < text.length) {
      const c = text[i];
      const top = stack[stack.length - 1];
      if (c === '{' || c === '[') {
        const path = top ? referenceChildPath(top) : '';
        stack.push({ array: c === '[', path, keys: new Set(), index: 0 });
        i += 1;
      } else if (c === '}' || c === ']') {
        stack.pop();
        i += 1;
      } else if (c === ',') {
        if (top?.array) top.index += 1;
        if (top) top.key = undefined;
        i += 1;
      } else if (c === '"') {
        let j = i + 1;
        while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
        if (top && !top.array && top.key === undefined) {
          let key: string;
          try {
            key = JSON.parse(text.slice(i, j + 1)) as string;
          } catch {
            return found;
          }
          if (top.keys.has(key)) found.push(top.path ? `${top.path}.${key}` : key);
          top.keys.add(key);
          top.key = key;
        }
        i = j + 1;
      } else {
        i += 1;
      }
    }
    return found;
  }
  return referenceDuplicateFields;
})();

/** JSON texts with repeated keys: objects built from lists of [key, value] members. */
const keys = fc.oneof(
  fc.constantFrom('a', 'b', 'metadata', 'name', '', 'a.b', '__proto__'),
  fc.string({ maxLength: 4 }),
  fc.constantFrom('\\', '"', 'é', '\u2028', '\n', '\ud800', '😀'),
);
const jsonText = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }).map((v) => JSON.stringify(v)),
    tie('object'),
    tie('array'),
  ),
  object: fc
    .array(fc.tuple(keys, tie('value'), fc.constantFrom('', ' ', '\n  ')), { maxLength: 5 })
    .map(
      (members) => `{${members.map(([k, v, ws]) => `${ws}${JSON.stringify(k)}${ws}:${ws}${v}`).join(',')}}`,
    ),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(', ')}]`),
})).object;

describe('duplicateFields', () => {
  it('names every repeated field by its path, in the order of the text', () => {
    assert.deepEqual(
      duplicateFields('{"metadata":{"name":"a","name":"b"},"spec":{"x":[{"k":1,"k":2}]},"spec":1}'),
      ['metadata.name', 'spec.x[0].k', 'spec'],
    );
    assert.deepEqual(duplicateFields('{"a\\"b":1,"a\\u0022b":2,"c":"\\\\","c":0}'), ['a"b', 'c']);
    assert.deepEqual(duplicateFields('{"a":1,"b":2}'), []);
  });

  it('answers as the character-by-character scanner did, on JSON and on text that is not JSON', () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        assert.deepEqual(duplicateFields(text), reference(text));
      }),
      { numRuns: 2000, seed: 14 },
    );
    fc.assert(
      fc.property(
        jsonText,
        fc.nat(),
        fc.string({ unit: fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', 'a', '\n') }),
        (text, at, noise) => {
          const cut = at % (text.length + 1);
          const broken = text.slice(0, cut) + noise + text.slice(cut);
          assert.deepEqual(duplicateFields(broken), reference(broken));
        },
      ),
      { numRuns: 2000, seed: 14 },
    );
  });
});
