import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { isCelError } from '@bufbuild/cel';
import { celOptional, compileExpression, escapedFieldName, toCelValue } from './cel.ts';
import type { SchemaNode } from './schema-node.ts';

/** Evaluates `source` with `self` (and `oldSelf`) shaped by `node`. */
function evaluate(source: string, node: SchemaNode, self: unknown, oldSelf?: unknown) {
  const bindings = {
    self: toCelValue(self, node),
    ...(oldSelf !== undefined && { oldSelf: toCelValue(oldSelf, node) }),
  };
  return compileExpression(source).evaluate(bindings);
}

const string: SchemaNode = { type: 'string' };
const strings: SchemaNode = { type: 'array', items: string };
const stringMap: SchemaNode = { type: 'object', additionalProperties: string };
const ref: SchemaNode = { type: 'object', properties: { name: string, namespace: string } };
const addresses: SchemaNode = {
  type: 'array',
  items: {
    type: 'object',
    properties: { family: string, address: string, class: string, primary: { type: 'boolean' } },
  },
};
const ipClassSpec: SchemaNode = {
  type: 'object',
  properties: {
    ipFamily: string,
    prefixLength: { type: 'integer' },
    reservedPrefixLength: { type: 'integer' },
  },
};
const claimSpec: SchemaNode = {
  type: 'object',
  properties: { networkInterfaceName: string, addresses, className: string, ipFamily: string },
};

interface RuleCase {
  rule: string;
  node: SchemaNode;
  /** [self, oldSelf?] pairs the rule holds for, then pairs it fails for. */
  holds: [unknown, unknown?][];
  fails: [unknown, unknown?][];
}

/** Every x-kubernetes-validations rule of spec/apis.md, on the schema node it sits on. */
const APIS_RULES: RuleCase[] = [
  {
    rule: 'self.all(f, self.exists_one(g, g == f))',
    node: strings,
    holds: [[['IPv6']], [['IPv4', 'IPv6']]],
    fails: [[['IPv6', 'IPv6']]],
  },
  {
    rule: 'self == oldSelf',
    node: ref,
    holds: [[{ name: 'a' }, { name: 'a' }]],
    fails: [
      [{ name: 'a' }, { name: 'b' }],
      [{ name: 'a', namespace: 'x' }, { name: 'a' }],
    ],
  },
  {
    rule: 'double(self) >= -90.0 && double(self) <= 90.0',
    node: string,
    holds: [['45.5'], ['-90'], ['0']],
    fails: [['90.01'], ['-91']],
  },
  {
    rule: 'double(self) >= -180.0 && double(self) <= 180.0',
    node: string,
    holds: [['179.9'], ['-180']],
    fails: [['180.5']],
  },
  {
    rule: "'topology.datum.net/city-code' in self && self['topology.datum.net/city-code'] != ''",
    node: stringMap,
    holds: [[{ 'topology.datum.net/city-code': 'dfw' }]],
    fails: [[{ 'topology.datum.net/city-code': '' }], [{ 'topology.datum.net/region': 'us' }]],
  },
  {
    rule: 'self.all(a, self.exists_one(b, b.class == a.class))',
    node: addresses,
    holds: [[[{ class: 'public' }, { class: 'private' }]], [[]]],
    fails: [[[{ class: 'public' }, { class: 'public' }]]],
  },
  {
    rule: 'has(self.networkInterfaceName) == has(oldSelf.networkInterfaceName) && (!has(self.networkInterfaceName) || self.networkInterfaceName == oldSelf.networkInterfaceName)',
    node: claimSpec,
    holds: [
      [{}, {}],
      [{ networkInterfaceName: 'a' }, { networkInterfaceName: 'a' }],
    ],
    fails: [
      [{ networkInterfaceName: 'a' }, {}],
      [{}, { networkInterfaceName: 'a' }],
      [{ networkInterfaceName: 'b' }, { networkInterfaceName: 'a' }],
    ],
  },
  {
    rule: 'has(self.addresses) == has(oldSelf.addresses) && (!has(self.addresses) || self.addresses == oldSelf.addresses)',
    node: claimSpec,
    holds: [
      [{}, {}],
      [{ addresses: [{ class: 'a' }] }, { addresses: [{ class: 'a' }] }],
    ],
    fails: [
      [{ addresses: [{ class: 'a' }] }, {}],
      [{ addresses: [{ class: 'b' }] }, { addresses: [{ class: 'a' }] }],
    ],
  },
  {
    rule: 'size(self) == 0 || self.filter(a, has(a.primary) && a.primary).size() == 1',
    node: addresses,
    holds: [
      [[]],
      [[{ family: 'IPv6', primary: true }, { family: 'IPv4' }]],
      [[{ primary: true }, { primary: false }]],
    ],
    fails: [[[{ family: 'IPv6' }]], [[{ primary: true }, { primary: true }]]],
  },
  {
    rule: 'self.all(a, self.exists_one(b, b.family == a.family))',
    node: addresses,
    holds: [[[{ family: 'IPv6' }, { family: 'IPv4' }]]],
    fails: [[[{ family: 'IPv6' }, { family: 'IPv6' }]]],
  },
  {
    rule: 'self.all(a, self.exists_one(b, b.address == a.address))',
    node: addresses,
    holds: [[[{ address: '203.0.113.1' }, { address: '203.0.113.2' }]]],
    fails: [[[{ address: '203.0.113.1' }, { address: '203.0.113.1' }]]],
  },
  {
    rule: "self.ipFamily == 'IPv6' || self.prefixLength <= 32",
    node: ipClassSpec,
    holds: [[{ ipFamily: 'IPv6', prefixLength: 64 }], [{ ipFamily: 'IPv4', prefixLength: 32 }]],
    fails: [[{ ipFamily: 'IPv4', prefixLength: 33 }]],
  },
  {
    rule: '!has(self.reservedPrefixLength) || self.reservedPrefixLength >= self.prefixLength',
    node: ipClassSpec,
    holds: [[{ prefixLength: 64 }], [{ prefixLength: 64, reservedPrefixLength: 96 }]],
    fails: [[{ prefixLength: 64, reservedPrefixLength: 48 }]],
  },
  {
    rule: 'self.all(r, self.exists_one(s, s == r))',
    node: strings,
    holds: [[['network', 'location']], [[]]],
    fails: [[['network', 'network']]],
  },
  {
    rule: 'has(self.className) != has(self.ipFamily)',
    node: claimSpec,
    holds: [[{ className: 'a' }], [{ ipFamily: 'IPv6' }]],
    fails: [[{}], [{ className: 'a', ipFamily: 'IPv6' }]],
  },
];

/** The code spans of spec/apis.md that are CEL rules (they mention self or oldSelf). */
function rulesInApisSpec(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`]+)`/g)].map((m) => m[1].replaceAll('\\|', '|'));
  return [...new Set(spans.filter((span) => /\b(self|oldSelf)\b(?!-)/.test(span)))];
}

const APIS_SPEC = new URL('../../../../shared/spec/apis.md', import.meta.url);

describe('CEL', () => {
  it('evaluates every rule of spec/apis.md as intended, on the values it guards', () => {
    for (const { rule, node, holds, fails } of APIS_RULES) {
      for (const [self, oldSelf] of holds)
        assert.equal(evaluate(rule, node, self, oldSelf), true, `${rule} on ${JSON.stringify(self)}`);
      for (const [self, oldSelf] of fails)
        assert.equal(evaluate(rule, node, self, oldSelf), false, `${rule} on ${JSON.stringify(self)}`);
    }
  });

  it(
    'compiles every rule found in spec/apis.md, each covered by the cases above',
    { skip: !existsSync(APIS_SPEC) && 'spec/apis.md is not checked out beside the repository' },
    () => {
      const rules = rulesInApisSpec(readFileSync(APIS_SPEC, 'utf8'));
      assert.ok(rules.length >= 15, `found only ${rules.length} rules`);
      for (const rule of rules) {
        assert.doesNotThrow(() => compileExpression(rule), rule);
        assert.ok(
          APIS_RULES.some((c) => c.rule === rule),
          `no case for ${rule}`,
        );
      }
    },
  );

  it('marks a rule reading oldSelf as a transition rule', () => {
    assert.equal(compileExpression('self == oldSelf').usesOldSelf, true);
    assert.equal(compileExpression('has(oldSelf.x) || true').usesOldSelf, true);
    assert.equal(compileExpression("self == 'oldSelf'").usesOldSelf, false);
  });

  it('refuses syntax errors and unknown functions at compile time', () => {
    assert.throws(() => compileExpression('self ==='));
    assert.throws(() => compileExpression('self.frobnicate()'), /undeclared reference to 'frobnicate'/);
    assert.throws(() => compileExpression('nosuch.func(self)'), /undeclared reference to 'func'/);
  });

  it('types integer fields as ints and number fields as doubles', () => {
    const node: SchemaNode = {
      type: 'object',
      properties: { count: { type: 'integer' }, ratio: { type: 'number' } },
    };
    assert.equal(
      evaluate('type(self.count) == int && type(self.ratio) == double', node, { count: 3, ratio: 3 }),
      true,
    );
    assert.equal(evaluate('self.count + 1', node, { count: 3, ratio: 1 }), 4n);
    assert.equal(evaluate('self.count < self.ratio', node, { count: 3, ratio: 3.5 }), true);
  });

  it('takes int-or-string values as an int or a string', () => {
    const node: SchemaNode = { 'x-kubernetes-int-or-string': true };
    assert.equal(evaluate('type(self) == int', node, 8080), true);
    assert.equal(evaluate('type(self) == string', node, 'http'), true);
  });

  it('supports the string functions, matches with RE2, the list macros and the strings extension', () => {
    assert.equal(
      evaluate("self.startsWith('eu-') && self.endsWith('-1') && self.contains('west')", string, 'eu-west-1'),
      true,
    );
    assert.equal(evaluate("self.matches('^[a-z]+-[0-9]$')", string, 'abc-1'), true);
    assert.equal(
      evaluate("self.exists(t, t == 'b') && !self.exists(t, t == 'z')", strings, ['a', 'b']),
      true,
    );
    assert.equal(evaluate("self.map(t, t + '!').size() == 2 && 'a' in self", strings, ['a', 'b']), true);
    assert.equal(evaluate("size(self) > 1 ? self[1] : ''", strings, ['a', 'b']), 'b');
    assert.equal(evaluate("self.lowerAscii().split('-').size() == 3", string, 'EU-West-1'), true);
    assert.equal(evaluate('int(self) + 1 == 42 && string(41) == "41"', string, '41'), true);
  });

  it('names declared fields by their escaped names and hides undeclared ones', () => {
    const node: SchemaNode = { type: 'object', properties: { 'x-y': string, in: string, 'a.b': string } };
    assert.equal(
      evaluate("self.x__dash__y == '1' && self.__in__ == '2' && self.a__dot__b == '3'", node, {
        'x-y': '1',
        in: '2',
        'a.b': '3',
      }),
      true,
    );
    assert.equal(escapedFieldName('a__b/c'), 'a__underscores__b__slash__c');
    assert.equal(escapedFieldName('9lives'), undefined);
    assert.equal(escapedFieldName('has space'), undefined);
  });

  it('exposes only apiVersion, kind, metadata.name and generateName of a resource’s metadata', () => {
    const node: SchemaNode = { type: 'object', properties: { spec: { type: 'object' } } };
    const object = { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'n', labels: { a: 'b' } }, spec: {} };
    const self = toCelValue(object, node, true);
    assert.equal(
      compileExpression("self.kind == 'Thing' && self.metadata.name == 'n'").evaluate({ self }),
      true,
    );
    assert.equal(compileExpression('has(self.metadata.labels)').evaluate({ self }), false);
  });

  it('returns a runtime error, not a throw, for a missing field', () => {
    const result = evaluate('self.name == "a"', ref, {});
    assert.ok(isCelError(result));
  });

  it('emulates optionals for optionalOldSelf rules', () => {
    const rule = compileExpression('!oldSelf.hasValue() || self >= oldSelf.value()');
    assert.equal(rule.evaluate({ self: 1n, oldSelf: celOptional(undefined) }), true);
    assert.equal(rule.evaluate({ self: 1n, oldSelf: celOptional(2n) }), false);
    assert.equal(
      compileExpression('oldSelf.orValue(5) + self').evaluate({ self: 1n, oldSelf: celOptional(undefined) }),
      6n,
    );
    assert.equal(
      compileExpression('optional.of(self).hasValue() && !optional.none().hasValue()').evaluate({ self: 1n }),
      true,
    );
    assert.ok(isCelError(compileExpression('optional.none().value()').evaluate({ self: 1n })));
  });
});
