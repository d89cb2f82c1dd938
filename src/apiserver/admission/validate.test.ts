import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SchemaNode } from './schema-node.ts';
import { validateAgainstSchema } from './validate.ts';

const schema: SchemaNode = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'string', enum: ['small', 'medium', 'large'] },
        replicas: { type: 'integer', minimum: 0, maximum: 10 },
        ratio: { type: 'number', minimum: 0, exclusiveMinimum: true },
        name: { type: 'string', maxLength: 5, minLength: 2, pattern: '^[a-z]+$' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 2, minItems: 1 },
        items: {
          type: 'array',
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        },
        port: { 'x-kubernetes-int-or-string': true },
        publishedAt: { type: 'string', format: 'date-time' },
        checksum: { type: 'string', format: 'md5-of-something' },
        note: { type: 'string', nullable: true, enum: ['a'] },
        topology: {
          type: 'object',
          minProperties: 1,
          maxProperties: 2,
          additionalProperties: { type: 'string' },
        },
      },
    },
  },
};

const errorsOf = (spec: Record<string, unknown>) =>
  validateAgainstSchema({ spec: { size: 'small', ...spec } }, schema).map((e) => `${e.field}: ${e.detail}`);

describe('schema validation', () => {
  it('accepts a valid object', () => {
    assert.deepEqual(
      errorsOf({
        replicas: 3,
        ratio: 0.5,
        name: 'abc',
        tags: ['x'],
        port: 80,
        publishedAt: '2024-01-01T00:00:00Z',
        note: null,
      }),
      [],
    );
  });

  it('words a type mismatch with the value’s type, as a FieldValueTypeInvalid', () => {
    const [error] = validateAgainstSchema({ spec: { size: 'small', replicas: 'three' } }, schema);
    assert.deepEqual(error, {
      reason: 'FieldValueTypeInvalid',
      field: 'spec.replicas',
      detail: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    });
    assert.deepEqual(errorsOf({ replicas: 1.5 }), [
      'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
    ]);
  });

  it('reports a missing required field at its own path', () => {
    const errors = validateAgainstSchema({ spec: {} }, schema);
    assert.deepEqual(errors, [
      { reason: 'FieldValueRequired', field: 'spec.size', detail: 'Required value' },
    ]);
  });

  it('lists the supported values of an enum', () => {
    const [error] = validateAgainstSchema({ spec: { size: 'huge' } }, schema);
    assert.deepEqual(error, {
      reason: 'FieldValueNotSupported',
      field: 'spec.size',
      detail: 'Unsupported value: "huge": supported values: "small", "medium", "large"',
    });
  });

  it('words minimum, maximum and exclusive bounds', () => {
    assert.deepEqual(errorsOf({ replicas: -1 }), [
      'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    ]);
    assert.deepEqual(errorsOf({ replicas: 11 }), [
      'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    ]);
    assert.deepEqual(errorsOf({ ratio: 0 }), [
      'spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0',
    ]);
  });

  it('words string length and pattern failures', () => {
    const [tooLong] = validateAgainstSchema({ spec: { size: 'small', name: 'abcdefg' } }, schema);
    assert.deepEqual(tooLong, {
      reason: 'FieldValueTooLong',
      field: 'spec.name',
      detail: 'Too long: may not be more than 5 bytes',
    });
    assert.deepEqual(errorsOf({ name: 'a' }), [
      'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long',
    ]);
    assert.deepEqual(errorsOf({ name: 'AB' }), [
      `spec.name: Invalid value: "AB": spec.name in body should match '^[a-z]+$'`,
    ]);
  });

  it('words item counts: too many as FieldValueTooMany, too few as invalid', () => {
    const [tooMany] = validateAgainstSchema({ spec: { size: 'small', tags: ['a', 'b', 'c'] } }, schema);
    assert.deepEqual(tooMany, {
      reason: 'FieldValueTooMany',
      field: 'spec.tags',
      detail: 'Too many: 3: must have at most 2 items',
    });
    assert.deepEqual(errorsOf({ tags: [] }), [
      'spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items',
    ]);
  });

  it('words property counts of a map', () => {
    assert.deepEqual(errorsOf({ topology: {} }), [
      'spec.topology: Invalid value: 0: spec.topology in body should have at least 1 properties',
    ]);
    assert.deepEqual(errorsOf({ topology: { a: 'x', b: 'y', c: 'z' } }), [
      'spec.topology: Too many: 3: must have at most 2 items',
    ]);
  });

  it('addresses list items by index and map values by key', () => {
    assert.deepEqual(errorsOf({ items: [{ name: 'a' }, {}] }), ['spec.items[1].name: Required value']);
    assert.deepEqual(errorsOf({ items: [{ name: 7 }] }), [
      'spec.items[0].name: Invalid value: "integer": spec.items[0].name in body must be of type string: "integer"',
    ]);
    assert.deepEqual(errorsOf({ topology: { 'city-code': 1 } }), [
      'spec.topology.city-code: Invalid value: "integer": spec.topology.city-code in body must be of type string: "integer"',
    ]);
  });

  it('takes an integer or a string for x-kubernetes-int-or-string, nothing else', () => {
    assert.deepEqual(errorsOf({ port: 'http' }), []);
    assert.deepEqual(errorsOf({ port: true }), [
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    ]);
  });

  it('checks known formats and ignores unknown ones', () => {
    assert.deepEqual(errorsOf({ publishedAt: 'yesterday' }), [
      'spec.publishedAt: Invalid value: "yesterday": spec.publishedAt in body must be of type date-time: "yesterday"',
    ]);
    assert.deepEqual(errorsOf({ checksum: 'anything' }), []);
  });

  it('accepts null only where the schema is nullable', () => {
    assert.deepEqual(errorsOf({ note: null }), []);
    assert.deepEqual(errorsOf({ note: 'b' }), ['spec.note: Unsupported value: "b": supported values: "a"']);
    assert.deepEqual(errorsOf({ name: null }), [
      'spec.name: Invalid value: "null": spec.name in body must be of type string: "null"',
    ]);
  });

  it('reports every failure, not just the first', () => {
    assert.equal(errorsOf({ replicas: -1, name: 'AB', tags: [] }).length, 3);
  });
});

describe('schemas that cannot be compiled', () => {
  it('refuses a schema JSON Schema’s meta-schema refuses, naming the keyword, on every use', () => {
    const minimum = 'one' as unknown as number;
    const broken: SchemaNode = { type: 'object', properties: { replicas: { type: 'integer', minimum } } };
    for (let use = 0; use < 2; use++)
      assert.throws(
        () => validateAgainstSchema({ replicas: 1 }, broken),
        /schema is invalid: data\/properties\/replicas\/minimum must be number/,
      );
  });
});
