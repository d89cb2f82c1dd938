import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  childPath,
  displayPath,
  fieldSchema,
  hasDefault,
  indexPath,
  isIntOrString,
  keyPath,
  reachesWhere,
  type SchemaNode,
} from './schema-node.ts';

describe('schema node', () => {
  it('reads a key by its property first, then by the map value schema', () => {
    const name: SchemaNode = { type: 'string' };
    const value: SchemaNode = { type: 'integer' };
    const node: SchemaNode = { type: 'object', properties: { name }, additionalProperties: value };
    assert.equal(fieldSchema(node, 'name'), name);
    assert.equal(fieldSchema(node, 'other'), value);
    assert.equal(fieldSchema({ type: 'object', properties: { name } }, 'toString'), undefined);
    assert.equal(fieldSchema({ type: 'object', additionalProperties: true }, 'x'), undefined);
  });

  it('treats a JSON null default as no default', () => {
    assert.equal(hasDefault({ type: 'string', default: null }), false);
    assert.equal(hasDefault({ type: 'boolean', default: false }), true);
  });

  it('knows int-or-string by the extension or the format', () => {
    assert.equal(isIntOrString({ 'x-kubernetes-int-or-string': true }), true);
    assert.equal(isIntOrString({ type: 'string', format: 'int-or-string' }), true);
    assert.equal(isIntOrString({ type: 'string' }), false);
  });

  it('spells paths as the Kubernetes API server does', () => {
    assert.equal(indexPath(childPath(childPath('', 'spec'), 'items'), 0), 'spec.items[0]');
    assert.equal(keyPath('spec.labels', 'a.b/c'), 'spec.labels[a.b/c]');
    assert.equal(displayPath(''), '<nil>');
    assert.equal(displayPath('spec'), 'spec');
  });

  it('tells whether a node, or one under it a walk follows, holds a property, asking once per node', () => {
    const asked: SchemaNode[] = [];
    const reachesDefault = reachesWhere((node) => {
      asked.push(node);
      return hasDefault(node);
    });
    const defaulted: SchemaNode = { type: 'integer', default: 1 };
    const plain: SchemaNode = { type: 'string' };
    const inProperty: SchemaNode = { type: 'object', properties: { a: plain, b: defaulted } };
    const inItems: SchemaNode = { type: 'array', items: { type: 'object', properties: { b: defaulted } } };
    const inMapValues: SchemaNode = { type: 'object', additionalProperties: defaulted };
    const elsewhere: SchemaNode = { type: 'object', allOf: [defaulted], properties: { a: plain } };
    for (const node of [defaulted, inProperty, inItems, inMapValues])
      assert.equal(reachesDefault(node), true);
    assert.equal(reachesDefault(plain), false);
    assert.equal(reachesDefault(elsewhere), false, 'allOf is not walked by the admission steps');
    const count = asked.length;
    reachesDefault(inProperty);
    reachesDefault(elsewhere);
    assert.equal(asked.length, count, 'answers are kept per node');
  });
});
