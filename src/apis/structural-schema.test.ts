import { Type } from '@sinclair/typebox';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toStructural } from './structural-schema.ts';

describe('structural schemas', () => {
  it('turn literals and unions of literals into enums', () => {
    assert.deepEqual(toStructural(Type.Literal('Organization')), { type: 'string', enum: ['Organization'] });
    assert.deepEqual(toStructural(Type.Union([Type.Literal('a'), Type.Literal('b')], { default: 'a' })), {
      type: 'string',
      enum: ['a', 'b'],
      default: 'a',
    });
  });

  it('turn a record into additionalProperties', () => {
    assert.deepEqual(toStructural(Type.Record(Type.String(), Type.Integer())), {
      type: 'object',
      additionalProperties: { type: 'integer' },
    });
  });

  it('mark integer|string as int-or-string without a type', () => {
    assert.deepEqual(toStructural(Type.Union([Type.String(), Type.Integer()])), {
      'x-kubernetes-int-or-string': true,
    });
  });

  it('drop $id, additionalProperties: false, empty required and TypeBox symbols', () => {
    const schema = Type.Object(
      { a: Type.Optional(Type.String()) },
      { $id: 'X', additionalProperties: false },
    );
    const converted = toStructural(schema);
    assert.deepEqual(converted, { type: 'object', properties: { a: { type: 'string' } } });
    assert.deepEqual(Object.getOwnPropertySymbols(converted), []);
  });

  it('keep x-kubernetes keywords, defaults and bounds, in a fixed key order', () => {
    const converted = toStructural(
      Type.Array(Type.String(), {
        'x-kubernetes-validations': [{ rule: 'size(self) > 0', message: 'm' }],
        maxItems: 2,
        default: ['x'],
        description: 'd',
      }),
    );
    assert.deepEqual(Object.keys(converted), [
      'description',
      'type',
      'default',
      'maxItems',
      'items',
      'x-kubernetes-validations',
    ]);
  });

  it('refuse what cannot be structural, naming where', () => {
    assert.throws(
      () => toStructural(Type.Object({ a: Type.Union([Type.String(), Type.Boolean()]) })),
      /<root>\.a: only unions of literals and of integer\|string are structural/,
    );
    assert.throws(
      () => toStructural(Type.Object({ b: Type.Unknown() })),
      /<root>\.b: a structural schema node needs a type/,
    );
    assert.throws(
      () => toStructural(Type.Object({}, { additionalProperties: true })),
      /additionalProperties: true is not structural/,
    );
  });
});
