import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pruneObject } from './prune.ts';
import type { SchemaNode } from './schema-node.ts';

const schema: SchemaNode = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'string' },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        extra: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { known: { type: 'object' } },
        },
        port: { 'x-kubernetes-int-or-string': true },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } },
        },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
};

const widget = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'w1' }) => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata,
  spec,
});

describe('pruning', () => {
  it('drops undeclared fields and reports their paths, sorted, with list indexes in brackets', () => {
    const { object, unknownFields } = pruneObject(
      widget({ size: 'small', zeta: 1, bogus: true, items: [{ name: 'a', colour: 'red' }] }),
      schema,
    );
    assert.deepEqual(object, widget({ size: 'small', items: [{ name: 'a' }] }));
    assert.deepEqual(unknownFields, ['spec.bogus', 'spec.items[0].colour', 'spec.zeta']);
  });

  it('keeps apiVersion and kind at the root and coerces metadata to ObjectMeta', () => {
    const { object, unknownFields } = pruneObject(
      widget({}, { name: 'w1', labels: { a: 'b' }, finalizers: ['f'], colour: 'red' }),
      schema,
    );
    assert.deepEqual(object, widget({}, { name: 'w1', labels: { a: 'b' }, finalizers: ['f'] }));
    assert.deepEqual(unknownFields, ['metadata.colour']);
  });

  it('keeps every key of a map and prunes inside its values', () => {
    const { object, unknownFields } = pruneObject(widget({ labels: { a: 'x', 'b.c/d': 'y' } }), schema);
    assert.deepEqual(object, widget({ labels: { a: 'x', 'b.c/d': 'y' } }));
    assert.deepEqual(unknownFields, []);
  });

  it('keeps unknown fields under x-kubernetes-preserve-unknown-fields but prunes declared fields inside', () => {
    const { object, unknownFields } = pruneObject(
      widget({ extra: { anything: { deep: [1, 2] }, known: { undeclared: 1 } } }),
      schema,
    );
    assert.deepEqual(object, widget({ extra: { anything: { deep: [1, 2] }, known: {} } }));
    assert.deepEqual(unknownFields, ['spec.extra.known.undeclared']);
  });

  it('keeps an embedded resource’s apiVersion, kind and ObjectMeta, and prunes the rest by its schema', () => {
    const { object, unknownFields } = pruneObject(
      widget({
        template: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p', bogus: 1 },
          spec: { image: 'nginx', replicas: 3 },
          other: true,
        },
      }),
      schema,
    );
    assert.deepEqual(
      object,
      widget({
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { image: 'nginx' } },
      }),
    );
    assert.deepEqual(unknownFields, [
      'spec.template.metadata.bogus',
      'spec.template.other',
      'spec.template.spec.replicas',
    ]);
  });

  it('leaves an int-or-string value alone', () => {
    assert.deepEqual(pruneObject(widget({ port: 8080 }), schema).object, widget({ port: 8080 }));
    assert.deepEqual(pruneObject(widget({ port: 'http' }), schema).object, widget({ port: 'http' }));
  });

  it('never changes its input', () => {
    const input = widget({ size: 'small', bogus: true });
    const before = structuredClone(input);
    pruneObject(input, schema);
    assert.deepEqual(input, before);
  });

  it('keeps everything when the root preserves unknown fields', () => {
    const input = widget({ anything: 1 }, { name: 'w1', colour: 'red' });
    const { object, unknownFields } = pruneObject(input, {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
    assert.deepEqual(object, widget({ anything: 1 }));
    assert.deepEqual(unknownFields, ['metadata.colour']);
  });
});
