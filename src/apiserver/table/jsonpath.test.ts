import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileJsonPath, evaluateJsonPath } from './jsonpath.ts';

const widget = {
  metadata: { name: 'w1', labels: { 'app.kubernetes.io/name': 'shop' } },
  spec: { replicas: 3, enabled: true, ports: [{ port: 80 }, { port: 443 }], empty: null },
  status: {
    conditions: [
      { type: 'Ready', status: 'True', observedGeneration: 2 },
      { type: 'Progressing', status: 'False', observedGeneration: 1 },
    ],
  },
};

describe('JSONPath evaluation', () => {
  it('follows dotted fields with and without the {…} wrapper and a leading $', () => {
    assert.deepEqual(evaluateJsonPath(widget, '.metadata.name'), ['w1']);
    assert.deepEqual(evaluateJsonPath(widget, '{.metadata.name}'), ['w1']);
    assert.deepEqual(evaluateJsonPath(widget, '{$.spec.replicas}'), [3]);
    assert.deepEqual(evaluateJsonPath(widget, "['metadata']['name']"), ['w1']);
  });

  it('reads a label key containing dots when the dots are escaped', () => {
    assert.deepEqual(evaluateJsonPath(widget, '.metadata.labels.app\\.kubernetes\\.io/name'), ['shop']);
  });

  it('indexes arrays from the start and from the end, and slices them', () => {
    assert.deepEqual(evaluateJsonPath(widget, '.spec.ports[0].port'), [80]);
    assert.deepEqual(evaluateJsonPath(widget, '.spec.ports[-1].port'), [443]);
    assert.deepEqual(evaluateJsonPath(widget, '.spec.ports[0:1].port'), [80]);
    assert.deepEqual(evaluateJsonPath(widget, '.spec.ports[::2].port'), [80]);
  });

  it('expands [*] and .* to every element in order', () => {
    assert.deepEqual(evaluateJsonPath(widget, '.spec.ports[*].port'), [80, 443]);
    assert.deepEqual(evaluateJsonPath(widget, '.status.conditions.*.type'), ['Ready', 'Progressing']);
  });

  it('filters array elements by == and != on strings, numbers and booleans', () => {
    assert.deepEqual(evaluateJsonPath(widget, '.status.conditions[?(@.type=="Ready")].status'), ['True']);
    assert.deepEqual(evaluateJsonPath(widget, ".status.conditions[?(@.type != 'Ready')].type"), [
      'Progressing',
    ]);
    assert.deepEqual(evaluateJsonPath(widget, '.status.conditions[?(@.observedGeneration==1)].type'), [
      'Progressing',
    ]);
    assert.deepEqual(
      evaluateJsonPath(
        {
          items: [
            { on: true, n: 'a' },
            { on: false, n: 'b' },
          ],
        },
        '.items[?(@.on==false)].n',
      ),
      ['b'],
    );
  });

  it('filters by ordering comparisons and by existence', () => {
    assert.deepEqual(evaluateJsonPath(widget, '.spec.ports[?(@.port > 100)].port'), [443]);
    assert.deepEqual(evaluateJsonPath(widget, '.status.conditions[?(@.observedGeneration)].type'), [
      'Ready',
      'Progressing',
    ]);
  });

  it('drops an element whose filter operand is missing or of another type, even for !=', () => {
    const items = { items: [{ type: 'Ready' }, { other: 1 }, { type: 1 }] };
    assert.deepEqual(evaluateJsonPath(items, '.items[?(@.type!="Ready")]'), []);
  });

  it('yields no match, never an error, for missing keys, out-of-range indexes and mismatched shapes', () => {
    assert.deepEqual(evaluateJsonPath(widget, '.status.missing.deeper'), []);
    assert.deepEqual(evaluateJsonPath(widget, '.spec.ports[5].port'), []);
    assert.deepEqual(evaluateJsonPath(widget, '.metadata.name.first'), []);
    assert.deepEqual(evaluateJsonPath(widget, '.spec[0]'), []);
    assert.deepEqual(evaluateJsonPath(widget, '.metadata.name[?(@.a=="b")]'), []);
    assert.deepEqual(evaluateJsonPath(widget, '.status.conditions[?(@.type=="Missing")].status'), []);
    assert.deepEqual(evaluateJsonPath(undefined, '.metadata.name'), []);
  });

  it('returns a present null as a match, distinct from a missing key', () => {
    assert.deepEqual(evaluateJsonPath(widget, '.spec.empty'), [null]);
  });

  it('refuses malformed and unsupported paths with an error naming the path', () => {
    for (const path of [
      '',
      'metadata.name',
      '{.metadata.name',
      '.spec.ports[0',
      '.spec.ports[a]',
      '.spec.ports[0,1]',
      '..name',
      '.status.conditions[?(@.type="Ready")]',
      '.status.conditions[?(@.type==Ready)]',
      '.status.conditions[?(@.type=="Ready"]',
      '.spec.ports[::0]',
      '.a}',
    ]) {
      assert.throws(
        () => compileJsonPath(path),
        (err: Error) => err.message.startsWith(`invalid JSONPath ${JSON.stringify(path)}:`),
        path,
      );
    }
  });
});
