import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { withDefaults } from './defaults.ts';
import { fieldSchema, type SchemaNode } from './schema-node.ts';

const PENDING = {
  status: 'Unknown',
  reason: 'Pending',
  message: 'Waiting for controller',
  lastTransitionTime: '1970-01-01T00:00:00Z',
};

const schema: SchemaNode = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        mtu: { type: 'integer', default: 1460 },
        ipFamilies: { type: 'array', items: { type: 'string' }, default: ['IPv6'] },
        ipam: { type: 'object', properties: { mode: { type: 'string', default: 'Auto' } } },
        addresses: {
          type: 'array',
          items: {
            type: 'object',
            properties: { class: { type: 'string' }, primary: { type: 'boolean', default: false } },
          },
        },
        scope: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            properties: { apiGroup: { type: 'string', default: 'core' } },
          },
        },
        note: { type: 'string', nullable: true, default: 'none' },
        comment: { type: 'string' },
        optional: { type: 'string', nullable: true },
      },
    },
    status: {
      type: 'object',
      default: { conditions: [{ type: 'Ready', ...PENDING }] },
      properties: {
        conditions: {
          type: 'array',
          items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  },
};

describe('defaulting', () => {
  it('fills missing properties of a present object, and leaves set ones alone', () => {
    assert.deepEqual(withDefaults({ spec: { mtu: 9000 } }, schema), {
      spec: { mtu: 9000, ipFamilies: ['IPv6'], note: 'none' },
      status: { conditions: [{ type: 'Ready', ...PENDING }] },
    });
  });

  it('defaults a nested object’s fields only when the parent object exists', () => {
    const without = withDefaults({ spec: {} }, schema) as { spec: Record<string, unknown> };
    assert.equal(without.spec.ipam, undefined);
    const withIpam = withDefaults({ spec: { ipam: {} } }, schema) as { spec: { ipam: unknown } };
    assert.deepEqual(withIpam.spec.ipam, { mode: 'Auto' });
  });

  it('defaults inside list items and map values', () => {
    const result = withDefaults(
      {
        spec: {
          addresses: [{ class: 'a' }, { class: 'b', primary: true }],
          scope: { network: {}, location: { apiGroup: 'x' } },
        },
      },
      schema,
    ) as { spec: Record<string, unknown> };
    assert.deepEqual(result.spec.addresses, [
      { class: 'a', primary: false },
      { class: 'b', primary: true },
    ]);
    assert.deepEqual(result.spec.scope, { network: { apiGroup: 'core' }, location: { apiGroup: 'x' } });
  });

  it('seeds a missing status from its default', () => {
    const result = withDefaults({ metadata: { name: 'n' }, spec: {} }, schema) as { status: unknown };
    assert.deepEqual(result.status, { conditions: [{ type: 'Ready', ...PENDING }] });
  });

  it('replaces a null with the default unless the field is nullable, and drops other non-nullable nulls', () => {
    const result = withDefaults(
      { spec: { mtu: null, note: null, comment: null, optional: null } },
      schema,
    ) as {
      spec: Record<string, unknown>;
    };
    assert.equal(result.spec.mtu, 1460);
    assert.equal(result.spec.note, null);
    assert.equal(Object.hasOwn(result.spec, 'comment'), false);
    assert.equal(result.spec.optional, null);
  });

  it('copies defaults, so two objects never share one', () => {
    const a = withDefaults({ spec: {} }, schema) as { spec: { ipFamilies: string[] } };
    const b = withDefaults({ spec: {} }, schema) as { spec: { ipFamilies: string[] } };
    a.spec.ipFamilies.push('IPv4');
    assert.deepEqual(b.spec.ipFamilies, ['IPv6']);
    assert.deepEqual(schema.properties!.spec.properties!.ipFamilies.default, ['IPv6']);
  });

  it('never changes its input', () => {
    const input = { spec: { addresses: [{ class: 'a' }] } };
    withDefaults(input, schema);
    assert.deepEqual(input, { spec: { addresses: [{ class: 'a' }] } });
  });
});

describe('dropping nulls at non-nullable fields', () => {
  /** The copying version this module had before session 8, kept as the reference. */
  const reference = (() => {
    const isPlainObject = (v: unknown): v is Record<string, unknown> =>
      typeof v === 'object' && v !== null && !Array.isArray(v);
    const isAdmitted = (_node: SchemaNode, _value: unknown) => false;
    function referenceDrop(value: unknown, node: SchemaNode | undefined): unknown {
      if (!node || isAdmitted(node, value)) return value;
      if (Array.isArray(value)) {
        const kept = value.map((item) => referenceDrop(item, node.items));
        return kept.every((item, i) => item === value[i]) ? value : kept;
      }
      if (!isPlainObject(value)) return value;
      const kept: Record<string, unknown> = {};
      let same = true;
      for (const [key, field] of Object.entries(value)) {
        const child = fieldSchema(node, key);
        if (field === null && child && !child.nullable) {
          same = false;
          continue;
        }
        kept[key] = referenceDrop(field, child);
        if (kept[key] !== field) same = false;
      }
      return same ? value : kept;
    }
    return referenceDrop;
  })();

  // No defaults anywhere, so withDefaults only drops nulls.
  const leaf: SchemaNode = { type: 'string' };
  const nullableLeaf: SchemaNode = { type: 'string', nullable: true };
  const inner: SchemaNode = {
    type: 'object',
    properties: {
      a: leaf,
      b: nullableLeaf,
      list: { type: 'array', items: { type: 'object', properties: { x: leaf } } },
    },
  };
  const nullSchema: SchemaNode = {
    type: 'object',
    properties: {
      spec: inner,
      map: { type: 'object', additionalProperties: inner },
      open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  };
  const key = fc.constantFrom('spec', 'map', 'open', 'a', 'b', 'x', 'list', 'other', '__proto__');
  const value = fc.letrec<{ v: unknown }>((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.string({ maxLength: 2 }),
      fc.integer(),
      fc.array(tie('v'), { maxLength: 3 }),
      fc
        .array(fc.tuple(key, tie('v')), { maxLength: 4 })
        .map((entries) => JSON.parse(JSON.stringify(Object.fromEntries(entries))) as unknown),
      fc.constant(JSON.parse('{"__proto__": null, "a": null, "b": null}') as unknown),
      fc.constant(JSON.parse('{"a": "k", "__proto__": "text"}') as unknown),
    ),
  })).v;

  it('drops what the copying version dropped, and returns what holds no such null as it is', () => {
    fc.assert(
      fc.property(value, (v) => {
        const expected = reference(v, nullSchema);
        const actual = withDefaults(v, nullSchema);
        assert.deepEqual(actual, expected);
        assert.equal(actual === v, expected === v);
        if (v !== null && typeof v === 'object') {
          assert.equal(Object.getPrototypeOf(actual), Object.getPrototypeOf(expected));
        }
      }),
      { numRuns: 3000, seed: 14 },
    );
  });
});
