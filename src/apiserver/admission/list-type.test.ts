import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateListTypes } from './list-type.ts';
import type { SchemaNode } from './schema-node.ts';

const schema: SchemaNode = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        routes: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['protocol', 'port'],
          items: { type: 'object', properties: { protocol: { type: 'string' }, port: { type: 'integer' } } },
        },
        atomic: { type: 'array', items: { type: 'string' } },
        groups: {
          type: 'object',
          additionalProperties: {
            type: 'array',
            'x-kubernetes-list-type': 'set',
            items: { type: 'integer' },
          },
        },
      },
    },
  },
};

const errorsOf = (spec: Record<string, unknown>) => validateListTypes({ spec }, schema);

describe('list types', () => {
  it('reports a repeated set item once, at its second occurrence', () => {
    assert.deepEqual(errorsOf({ tags: ['a', 'b', 'a', 'a', 'b'] }), [
      { reason: 'FieldValueDuplicate', field: 'spec.tags[2]', detail: 'Duplicate value: "a"' },
      { reason: 'FieldValueDuplicate', field: 'spec.tags[4]', detail: 'Duplicate value: "b"' },
    ]);
  });

  it('reports map-list items sharing their key, worded as Go prints the key', () => {
    assert.deepEqual(
      errorsOf({
        ports: [
          { name: 'http', port: 80 },
          { name: 'http', port: 8080 },
        ],
      }),
      [
        {
          reason: 'FieldValueDuplicate',
          field: 'spec.ports[1]',
          detail: 'Duplicate value: map[string]interface {}{"name":"http"}',
        },
      ],
    );
  });

  it('compares every key field of a map list', () => {
    const routes = [
      { protocol: 'TCP', port: 80 },
      { protocol: 'UDP', port: 80 },
      { port: 80, protocol: 'TCP' },
    ];
    assert.deepEqual(
      errorsOf({ routes }).map((e) => `${e.field}: ${e.detail}`),
      ['spec.routes[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}'],
    );
  });

  it('refuses a map list holding something other than objects', () => {
    assert.deepEqual(errorsOf({ ports: [{ name: 'a' }, 'b'] }), [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.ports[1]',
        detail: 'Invalid value: "b": must be an object for an array of list-type map',
      },
    ]);
  });

  it('lets atomic lists repeat items and addresses map values by key', () => {
    assert.deepEqual(errorsOf({ atomic: ['a', 'a'] }), []);
    assert.deepEqual(
      errorsOf({ groups: { blue: [1, 2, 1] } }).map((e) => `${e.field}: ${e.detail}`),
      ['spec.groups[blue][2]: Duplicate value: 1'],
    );
  });

  it('finds the same duplicates in a long list as in a short one, objects equal whatever their key order', () => {
    const short = ['x', { a: 1, b: [2] }, 'y', { b: [2], a: 1 }, 'x', 'x'];
    const long = [...Array.from({ length: 20 }, (_, i) => `t${i}`), ...short];
    const shortErrors = errorsOf({ tags: short }).map((e) => `${e.field}: ${e.detail}`);
    assert.deepEqual(shortErrors, [
      'spec.tags[3]: Duplicate value: map[string]interface {}{"a":1, "b":[]interface {}{2}}',
      'spec.tags[4]: Duplicate value: "x"',
    ]);
    assert.deepEqual(
      errorsOf({ tags: long }).map((e) => `${e.field}: ${e.detail}`),
      shortErrors.map((line) => line.replace(/\[(\d+)\]/, (_, i: string) => `[${Number(i) + 20}]`)),
    );
    const ports = Array.from({ length: 20 }, (_, i) => ({ name: `p${i % 18}`, port: i }));
    assert.deepEqual(
      errorsOf({ ports }).map((e) => e.field),
      ['spec.ports[18]', 'spec.ports[19]'],
    );
    assert.deepEqual(
      errorsOf({ ports: [null, { port: 1 }, null] }).map((e) => `${e.field}: ${e.detail}`),
      ['spec.ports[1]: Duplicate value: map[string]interface {}{}'],
    );
  });
});
