import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retainedBy } from '../../../test/support/retained.ts';
import {
  heldStrings,
  internString,
  internStrings,
  internStringsSince,
  MAX_LENGTH,
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
    // The new status and resourceVersion are taken in; the spec the versions share is not walked.
    assert.ok(
      heldStrings() >= held + 2 && heldStrings() <= held + 5,
      `${heldStrings() - held} strings added`,
    );
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
