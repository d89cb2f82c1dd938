import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SchemaNode, ValidationRule } from './schema-node.ts';
import { sharedExpression, validateRules } from './validation-rules.ts';

const ref = (rules: ValidationRule[] = []): SchemaNode => ({
  type: 'object',
  properties: { name: { type: 'string' } },
  'x-kubernetes-validations': rules,
});

/** A root schema whose `spec` has the given properties and rules. */
function withSpec(properties: Record<string, SchemaNode>, rules: ValidationRule[] = []): SchemaNode {
  return {
    type: 'object',
    properties: { spec: { type: 'object', properties, 'x-kubernetes-validations': rules } },
  };
}

const lines = (schema: SchemaNode, spec: unknown, oldSpec?: unknown) =>
  validateRules({ spec }, oldSpec === undefined ? undefined : { spec: oldSpec }, schema).map(
    (e) => `${e.field}: ${e.detail}`,
  );

describe('validation rules', () => {
  const immutable = withSpec({
    location: ref([{ rule: 'self == oldSelf', message: 'spec.location is immutable' }]),
  });

  it('a transition rule passes on create and refuses a changed value on update', () => {
    assert.deepEqual(lines(immutable, { location: { name: 'dfw' } }), []);
    assert.deepEqual(lines(immutable, { location: { name: 'dfw' } }, { location: { name: 'dfw' } }), []);
    const errors = validateRules(
      { spec: { location: { name: 'ord' } } },
      { spec: { location: { name: 'dfw' } } },
      immutable,
    );
    assert.deepEqual(errors, [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.location',
        detail: 'Invalid value: "object": spec.location is immutable',
      },
    ]);
  });

  it('skips a transition rule when the old object has no value there', () => {
    assert.deepEqual(lines(immutable, { location: { name: 'ord' } }, {}), []);
  });

  it('names the schema type of a scalar node in the failure', () => {
    const schema = withSpec({
      color: {
        type: 'string',
        'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'color is immutable' }],
      },
    });
    assert.deepEqual(lines(schema, { color: 'red' }, { color: 'blue' }), [
      'spec.color: Invalid value: "string": color is immutable',
    ]);
  });

  it('words a failure without a message as "failed rule"', () => {
    const schema = withSpec({
      replicas: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self % 2 == 0' }] },
    });
    assert.deepEqual(lines(schema, { replicas: 3 }), [
      'spec.replicas: Invalid value: "integer": failed rule: self % 2 == 0',
    ]);
  });

  it('evaluates has(), size(), all() and exists_one() rules on the spec', () => {
    const schema = withSpec(
      {
        className: { type: 'string' },
        ipFamily: { type: 'string' },
        roles: { type: 'array', items: { type: 'string' } },
      },
      [
        {
          rule: 'has(self.className) != has(self.ipFamily)',
          message: 'exactly one of className and ipFamily must be set',
        },
        { rule: '!has(self.roles) || size(self.roles) <= 2', message: 'at most two roles' },
        {
          rule: '!has(self.roles) || self.roles.all(r, self.roles.exists_one(s, s == r))',
          message: 'roles must be unique',
        },
      ],
    );
    assert.deepEqual(lines(schema, { className: 'a', roles: ['x', 'y'] }), []);
    assert.deepEqual(lines(schema, { className: 'a', ipFamily: 'IPv6', roles: ['x', 'x', 'y'] }), [
      'spec: Invalid value: "object": exactly one of className and ipFamily must be set',
      'spec: Invalid value: "object": at most two roles',
      'spec: Invalid value: "object": roles must be unique',
    ]);
  });

  it('uses messageExpression when it yields a message, and falls back to message otherwise', () => {
    const schema = withSpec({
      replicas: {
        type: 'integer',
        'x-kubernetes-validations': [
          {
            rule: 'self <= 5',
            messageExpression: "'replicas is ' + string(self) + ', more than 5'",
            message: 'too many',
          },
          { rule: 'self <= 4', messageExpression: 'self.nosuch', message: 'more than 4' },
          { rule: 'self <= 3', messageExpression: "'  '" },
        ],
      },
    });
    assert.deepEqual(lines(schema, { replicas: 6 }), [
      'spec.replicas: Invalid value: "integer": replicas is 6, more than 5',
      'spec.replicas: Invalid value: "integer": more than 4',
      'spec.replicas: Invalid value: "integer": failed rule: self <= 3',
    ]);
  });

  it('words failures by their reason', () => {
    const schema = withSpec({
      mode: {
        type: 'string',
        'x-kubernetes-validations': [
          { rule: "self != 'Legacy'", message: 'Legacy mode is not allowed', reason: 'FieldValueForbidden' },
          { rule: "self != ''", message: 'a mode is needed', reason: 'FieldValueRequired' },
          { rule: "self != 'Twice'", reason: 'FieldValueDuplicate' },
        ],
      },
    });
    assert.deepEqual(validateRules({ spec: { mode: 'Legacy' } }, undefined, schema), [
      { reason: 'FieldValueForbidden', field: 'spec.mode', detail: 'Forbidden: Legacy mode is not allowed' },
    ]);
    assert.deepEqual(lines(schema, { mode: '' }), ['spec.mode: Required value: a mode is needed']);
    assert.deepEqual(lines(schema, { mode: 'Twice' }), ['spec.mode: Duplicate value: "string"']);
  });

  it('reports at the rule’s fieldPath', () => {
    const schema = withSpec(
      {
        min: { type: 'integer' },
        max: { type: 'integer' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
      [
        { rule: 'self.min <= self.max', message: 'max must not be below min', fieldPath: '.max' },
        { rule: "!('a.b' in self.labels)", message: 'no a.b', fieldPath: ".labels['a.b']" },
      ],
    );
    assert.deepEqual(lines(schema, { min: 3, max: 1, labels: { 'a.b': 'x' } }), [
      'spec.max: Invalid value: "object": max must not be below min',
      'spec.labels[a.b]: Invalid value: "object": no a.b',
    ]);
  });

  it('reports a rule that errors while running, and one that does not compile', () => {
    const schema = withSpec({
      location: ref([{ rule: "self.name == 'x'", message: 'must be x' }, { rule: 'self.frob()' }]),
    });
    const [runtime, compile] = lines(schema, { location: {} });
    assert.match(runtime, /^spec\.location: Invalid value: "object": .* evaluating rule: must be x$/);
    assert.equal(
      compile,
      `spec.location: Invalid value: "object": rule compile error: undeclared reference to 'frob'`,
    );
  });

  it('evaluates item rules per item, correlating old items only in list-type maps', () => {
    const item = (listType: 'map' | 'atomic'): SchemaNode => ({
      type: 'array',
      'x-kubernetes-list-type': listType,
      ...(listType === 'map' && { 'x-kubernetes-list-map-keys': ['name'] }),
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, port: { type: 'integer' } },
        'x-kubernetes-validations': [{ rule: 'self.port == oldSelf.port', message: 'port is immutable' }],
      },
    });
    const schema = withSpec({ ports: item('map'), atomic: item('atomic') });
    const old = { ports: [{ name: 'http', port: 80 }], atomic: [{ name: 'http', port: 80 }] };
    const next = {
      ports: [
        { name: 'https', port: 443 },
        { name: 'http', port: 8080 },
      ],
      atomic: [{ name: 'http', port: 8080 }],
    };
    assert.deepEqual(lines(schema, next, old), ['spec.ports[1]: Invalid value: "object": port is immutable']);
  });

  it('correlates map values by key', () => {
    const schema = withSpec({
      scope: {
        type: 'object',
        additionalProperties: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'scope entries are immutable' }],
        },
      },
    });
    assert.deepEqual(lines(schema, { scope: { network: 'b', location: 'x' } }, { scope: { network: 'a' } }), [
      'spec.scope[network]: Invalid value: "string": scope entries are immutable',
    ]);
  });

  it('runs an optionalOldSelf rule on create, with oldSelf empty', () => {
    const schema = withSpec({
      replicas: {
        type: 'integer',
        'x-kubernetes-validations': [
          {
            rule: 'oldSelf.hasValue() ? self >= oldSelf.value() : self <= 3',
            message: 'may only grow, from at most 3',
            optionalOldSelf: true,
          },
        ],
      },
    });
    assert.deepEqual(lines(schema, { replicas: 5 }), [
      'spec.replicas: Invalid value: "integer": may only grow, from at most 3',
    ]);
    assert.deepEqual(lines(schema, { replicas: 2 }), []);
    assert.deepEqual(lines(schema, { replicas: 5 }, { replicas: 4 }), []);
    assert.deepEqual(lines(schema, { replicas: 3 }, { replicas: 4 }), [
      'spec.replicas: Invalid value: "integer": may only grow, from at most 3',
    ]);
  });

  it('reports a rule on the object itself at <nil>, or at its fieldPath, and sees metadata.name', () => {
    const schema: SchemaNode = {
      type: 'object',
      properties: { spec: { type: 'object' } },
      'x-kubernetes-validations': [
        { rule: "self.metadata.name.startsWith('w-')", message: 'names start with w-' },
        { rule: "self.kind == 'Gadget'", message: 'only gadgets', fieldPath: '.spec' },
      ],
    };
    const errors = validateRules(
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' }, spec: {} },
      undefined,
      schema,
    );
    assert.deepEqual(errors, [
      { reason: 'FieldValueInvalid', field: '<nil>', detail: 'Invalid value: "object": names start with w-' },
      { reason: 'FieldValueInvalid', field: 'spec', detail: 'Invalid value: "object": only gadgets' },
    ]);
  });

  it('does not evaluate rules on a null value', () => {
    const schema = withSpec({
      note: { type: 'string', nullable: true, 'x-kubernetes-validations': [{ rule: 'size(self) > 3' }] },
    });
    assert.deepEqual(lines(schema, { note: null }), []);
  });
});

describe('validation rules shared across planes', () => {
  it('compiles one program per rule text, used by two copies of the same schema with their own results', () => {
    const rule = { rule: 'self.size() <= 3', message: 'at most three' };
    const planeA = withSpec({
      tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [rule] },
    });
    const planeB = structuredClone(planeA);
    assert.equal(sharedExpression(rule.rule), sharedExpression(rule.rule));
    assert.deepEqual(lines(planeA, { tags: ['a'] }), []);
    assert.deepEqual(lines(planeB, { tags: ['a', 'b', 'c', 'd'] }), [
      'spec.tags: Invalid value: "array": at most three',
    ]);
    assert.deepEqual(lines(planeA, { tags: ['a', 'b', 'c', 'd'] }), [
      'spec.tags: Invalid value: "array": at most three',
    ]);
    assert.deepEqual(lines(planeB, { tags: [] }), []);
  });

  it('still fails every write that reaches a rule that does not compile', () => {
    const broken = withSpec({}, [{ rule: 'nosuchfunction(self)' }]);
    assert.match(lines(broken, {})[0], /rule compile error: undeclared reference to 'nosuchfunction'/);
  });
});

describe('validation rules held on equal content', () => {
  /** Counts the evaluations of the shared program of `source` while `run` runs. */
  function evaluationsOf(source: string, run: () => void): number {
    const expression = sharedExpression(source);
    const evaluate = expression.evaluate.bind(expression);
    let count = 0;
    expression.evaluate = (bindings) => {
      count++;
      return evaluate(bindings);
    };
    try {
      run();
    } finally {
      expression.evaluate = evaluate;
    }
    return count;
  }

  it('evaluates a rule once for equal values in distinct objects, and again for other values', () => {
    const source = 'self.all(f, self.exists_one(g, g == f))';
    const schema = withSpec({
      families: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: source }] },
    });
    const count = evaluationsOf(source, () => {
      for (let i = 0; i < 5; i++) assert.deepEqual(lines(schema, { families: ['IPv4', 'IPv6'] }), []);
      assert.deepEqual(lines(schema, { families: ['IPv6'] }), []);
    });
    assert.equal(count, 2);
  });

  it('evaluates a failing rule every time, so each write that breaks it is refused', () => {
    const source = 'self.size() <= 1';
    const schema = withSpec({
      families: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: source }] },
    });
    const count = evaluationsOf(source, () => {
      for (let i = 0; i < 3; i++)
        assert.deepEqual(lines(schema, { families: ['IPv4', 'IPv6'] }), [
          'spec.families: Invalid value: "array": failed rule: self.size() <= 1',
        ]);
    });
    assert.equal(count, 3);
  });

  it('knows a transition rule by both values: one that held is still evaluated against another old value', () => {
    const schema = withSpec({
      location: ref([{ rule: 'self == oldSelf', message: 'spec.location is immutable' }]),
    });
    assert.deepEqual(lines(schema, { location: { name: 'a' } }, { location: { name: 'a' } }), []);
    assert.deepEqual(lines(schema, { location: { name: 'a' } }, { location: { name: 'b' } }), [
      'spec.location: Invalid value: "object": spec.location is immutable',
    ]);
    assert.deepEqual(lines(schema, { location: { name: 'a' } }, { location: { name: 'a' } }), []);
  });
});
