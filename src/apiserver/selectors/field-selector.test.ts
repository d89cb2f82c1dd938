import assert from 'node:assert/strict';
import type { KubeObject } from '../objects.ts';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import { matchesFields, objectFields, parseFieldSelector, requiredName } from './field-selector.ts';

const metadataFields = new Set(['metadata.name', 'metadata.namespace']);
const namespaceFields = new Set([...metadataFields, 'status.phase']);

function rejects(text: string, supported: ReadonlySet<string>, message: string): void {
  assert.throws(
    () => parseFieldSelector(text, supported),
    (err: unknown) =>
      err instanceof ApiError && err.code === 400 && err.reason === 'BadRequest' && err.message === message,
    text,
  );
}

function matches(text: string, object: KubeObject, supported: ReadonlySet<string> = metadataFields): boolean {
  return matchesFields(parseFieldSelector(text, supported), objectFields(object));
}

describe('parseFieldSelector', () => {
  it('reads =, == and != terms joined by commas, in sorted order', () => {
    assert.deepEqual(
      parseFieldSelector('metadata.namespace!=kube-system,metadata.name==w1', metadataFields),
      {
        requirements: [
          { field: 'metadata.name', operator: 'Equals', value: 'w1' },
          { field: 'metadata.namespace', operator: 'NotEquals', value: 'kube-system' },
        ],
      },
    );
  });

  it('selects everything when absent, empty or made of empty terms', () => {
    assert.deepEqual(parseFieldSelector(undefined, metadataFields).requirements, []);
    assert.deepEqual(parseFieldSelector('', metadataFields).requirements, []);
    assert.deepEqual(parseFieldSelector(',', metadataFields).requirements, []);
  });

  it('unescapes \\, \\= and \\\\ in values', () => {
    assert.deepEqual(parseFieldSelector('metadata.name=a\\,b\\=c\\\\d', metadataFields).requirements, [
      { field: 'metadata.name', operator: 'Equals', value: 'a,b=c\\d' },
    ]);
  });

  it('refuses a field the kind does not support, naming it', () => {
    rejects('spec.color=blue', metadataFields, 'field label not supported: spec.color');
    rejects('metadata.name = w1', metadataFields, 'field label not supported: metadata.name ');
    assert.doesNotThrow(() => parseFieldSelector('status.phase=Active', namespaceFields));
  });

  it('refuses malformed terms before unsupported fields, as the real server words them', () => {
    rejects(
      'spec.color=blue,name',
      metadataFields,
      "invalid selector: 'spec.color=blue,name'; can't understand 'name'",
    );
    rejects('metadata.name=a=b', metadataFields, 'invalid field selector: unescaped character in value: 61');
    rejects('metadata.name=a\\b', metadataFields, 'invalid field selector: invalid escape sequence: \\b');
    rejects('metadata.name=a\\', metadataFields, 'invalid field selector: invalid escape sequence: \\');
  });
});

describe('matchesFields', () => {
  const w1 = { metadata: { name: 'w1', namespace: 'ns1' } };

  it('requires every term to hold', () => {
    assert.equal(matches('metadata.name=w1,metadata.namespace=ns1', w1), true);
    assert.equal(matches('metadata.name=w1,metadata.namespace=ns2', w1), false);
    assert.equal(matches('metadata.name!=w2', w1), true);
    assert.equal(matches('metadata.name!=w1', w1), false);
  });

  it('gives a cluster-scoped object an empty namespace', () => {
    const ns = { metadata: { name: 'demo' } };
    assert.equal(matches('metadata.namespace=', ns), true);
    assert.equal(matches('metadata.namespace!=ns1', ns), true);
  });

  it('selects by the extra fields a kind provides', () => {
    const ns = { metadata: { name: 'demo' }, status: { phase: 'Terminating' } };
    const fields = objectFields(ns, {
      'status.phase': (o) => String((o.status as { phase?: string } | undefined)?.phase ?? ''),
    });
    assert.deepEqual(fields, {
      'metadata.name': 'demo',
      'metadata.namespace': '',
      'status.phase': 'Terminating',
    });
    assert.equal(matchesFields(parseFieldSelector('status.phase=Active', namespaceFields), fields), false);
    assert.equal(matchesFields(parseFieldSelector('status.phase!=Active', namespaceFields), fields), true);
  });
});

describe('requiredName', () => {
  it('returns the name pinned by metadata.name= or ==', () => {
    assert.equal(requiredName(parseFieldSelector('metadata.name=w1', metadataFields)), 'w1');
    assert.equal(
      requiredName(parseFieldSelector('metadata.namespace=ns1,metadata.name==w1', metadataFields)),
      'w1',
    );
  });

  it('returns nothing when the name is only excluded or not mentioned', () => {
    assert.equal(requiredName(parseFieldSelector('metadata.name!=w1', metadataFields)), undefined);
    assert.equal(requiredName(parseFieldSelector('metadata.namespace=ns1', metadataFields)), undefined);
    assert.equal(requiredName(parseFieldSelector(undefined, metadataFields)), undefined);
  });
});
