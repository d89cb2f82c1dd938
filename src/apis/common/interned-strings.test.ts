import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retainedBy } from '../../../test/support/retained.ts';
import {
  heldStrings,
  internString,
  internStrings,
  internStringsSince,
  MAX_LENGTH,
  PARSER_SHARED_LENGTH,
  TABLE_ENTRIES,
} from './interned-strings.ts';

describe('interned strings', () => {
  it('leave a decoded object equal to what it was, with the same containers', () => {
    const text = JSON.stringify({
      apiVersion: 'networking.datumapis.com/v1alpha',
      metadata: { name: 'n', labels: { a: 'b' }, finalizers: ['x', 'y'] },
      status: { conditions: [{ type: 'Ready', status: 'True', n: 1, ok: true, none: null }] },
    });
    const object = JSON.parse(text) as { metadata: object; status: { conditions: object[] } };
    const { metadata, status } = object;
    const condition = status.conditions[0];
    assert.equal(internStrings(object), object);
    assert.equal(JSON.stringify(object), text);
    assert.equal(object.metadata, metadata);
    assert.equal(object.status.conditions[0], condition);
  });

  it('keep one copy of a value repeated across a thousand objects', async () => {
    const text = JSON.stringify({ message: `Waiting for controller ${'.'.repeat(200)}` });
    const parse = (intern: boolean) => () =>
      Array.from({ length: 20_000 }, () => {
        const object: unknown = JSON.parse(text);
        return intern ? internStrings(object) : object;
      });
    const copies = await retainedBy(parse(false));
    const shared = await retainedBy(parse(true));
    // Each copy is ~230 bytes against the ~40 of its object and the array's slot.
    assert.ok(shared * 3 < copies, `interned ${shared} bytes, not interned ${copies}`);
  });

  it('leave a short value to JSON.parse, which already shares it (and a longer one to the table)', async () => {
    // What the table relies on: V8 decodes a string value of up to PARSER_SHARED_LENGTH characters
    // as one instance per value, and a longer one as a new string each time. The texts differ
    // elsewhere and are each their own flat string, as lines off a watch are.
    const texts = (length: number) =>
      Array.from({ length: 20_000 }, (_, i) =>
        Buffer.from(JSON.stringify({ i, value: 'abcdefghijklmnopqrstuvwxyz'.slice(0, length) })).toString(),
      );
    const values = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { value: string }).value);
    const shortTexts = texts(PARSER_SHARED_LENGTH);
    const longerTexts = texts(PARSER_SHARED_LENGTH + 1);
    const short = await retainedBy(() => values(shortTexts));
    const longer = await retainedBy(() => values(longerTexts));
    // Each longer value is its own string of ~28 bytes; the short ones are one.
    assert.ok(longer - short > 20_000 * 16, `short values ${short} bytes, longer ${longer} bytes`);
    const held = heldStrings();
    internStrings(
      JSON.parse(JSON.stringify({ a: 'x'.repeat(PARSER_SHARED_LENGTH), b: `y-${Math.random()}` })),
    );
    assert.equal(heldStrings(), held + 1, 'only the longer value went to the table');
  });

  it('leave frozen containers and a __proto__ key as they are, without throwing', () => {
    const frozen = Object.freeze({ type: 'string', items: Object.freeze(['a']) });
    const object = JSON.parse('{"__proto__":{"polluted":"yes"},"spec":{"x":"y"}}') as Record<string, unknown>;
    object.schema = frozen;
    internStrings(object);
    assert.equal(object.schema, frozen);
    assert.equal(Object.getPrototypeOf(object), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(object, '__proto__')?.value, { polluted: 'yes' });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('walk, in a new version, only what it does not share with the previous one', () => {
    const previous = JSON.parse(
      JSON.stringify({
        metadata: { name: 'n', finalizers: ['f'] },
        spec: { addresses: [{ address: `never-interned-${Math.random()}` }] },
        status: { phase: 'Pending' },
      }),
    ) as Record<string, Record<string, unknown>>;
    const text = JSON.stringify({ phase: `Bound-${Math.random()}`, list: ['a', { b: 'c' }] });
    const next: Record<string, Record<string, unknown>> = {
      ...previous,
      metadata: { ...previous.metadata, resourceVersion: '2' },
      status: JSON.parse(text) as Record<string, unknown>,
    };
    const held = heldStrings();
    const status = next.status;
    assert.equal(internStringsSince(next, previous), next);
    // The new status's phase is taken in (the other new strings are short: JSON.parse shares
    // them); the spec the versions share is not walked.
    assert.equal(heldStrings(), held + 1, `${heldStrings() - held} strings added`);
    assert.equal(next.spec, previous.spec);
    assert.equal(next.status, status);
    assert.equal(JSON.stringify(next.status), text);
    const before = heldStrings();
    internStrings(next.spec);
    assert.equal(heldStrings(), before + 1, 'the shared spec held a string the table had not seen');
  });

  it('hold at most TABLE_ENTRIES strings, none longer than MAX_LENGTH, starting over when full', () => {
    internString('x'.repeat(MAX_LENGTH + 1));
    const held = heldStrings();
    internString(`seen-once-${held}`);
    assert.equal(heldStrings(), held + 1);
    for (let i = 0; heldStrings() < TABLE_ENTRIES; i++) internString(`fill-${i}`);
    internString('one more');
    assert.equal(heldStrings(), 1);
    internString('y'.repeat(MAX_LENGTH + 1));
    assert.equal(heldStrings(), 1);
  });
});
