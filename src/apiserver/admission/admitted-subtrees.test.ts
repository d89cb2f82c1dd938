import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { allCrds } from '../../apis/crds.ts';
import { ApiError } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import { typesOfCrd } from '../resources/crd.ts';
import type { ResourceType } from '../resources/resource-type.ts';
import { isAdmitted } from './admitted-subtrees.ts';
import type { AdmissionRequest } from './plugins.ts';
import { schemaAdmission } from './schema-admission.ts';
import type { SchemaNode } from './schema-node.ts';

const plugin = schemaAdmission();

function request(type: ResourceType, overrides: Partial<AdmissionRequest>): AdmissionRequest {
  return {
    operation: 'CREATE',
    type,
    object: {} as KubeObject,
    dryRun: false,
    fieldValidation: 'Strict',
    warnings: [],
    related: [],
    ...overrides,
  };
}

/** What admitting gives: the admitted object, or the refusal's status, message and causes. */
function outcome(type: ResourceType, overrides: Partial<AdmissionRequest>): unknown {
  const admission = request(type, overrides);
  try {
    return { object: plugin.admit(admission), warnings: admission.warnings };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { message: err.message, status: err.toStatus(), warnings: admission.warnings };
  }
}

/** A value for `node`: mostly one the schema accepts, sometimes not (lists repeat keys…). */
function valueFor(node: SchemaNode | undefined, depth: number): fc.Arbitrary<unknown> {
  if (!node || depth > 6) return fc.constant('x');
  if (node.enum) return fc.constantFrom(...node.enum);
  if (node['x-kubernetes-int-or-string']) return fc.oneof(fc.integer({ min: 0, max: 9 }), fc.constant('a'));
  switch (node.type) {
    case 'object': {
      if (node.properties) {
        const keys = Object.keys(node.properties);
        const required = (node.required ?? []).filter((key) => keys.includes(key));
        return fc.record(
          Object.fromEntries(keys.map((key) => [key, valueFor(node.properties![key], depth + 1)])),
          { requiredKeys: required },
        );
      }
      const values = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
      if (values)
        return fc.dictionary(fc.constantFrom('a', 'b'), valueFor(values, depth + 1), { maxKeys: 2 });
      return fc.constant({ preserved: { any: 1 } });
    }
    case 'array':
      return fc.array(valueFor(node.items, depth + 1), {
        minLength: Math.min(node.minItems ?? 0, 2),
        maxLength: Math.min(node.maxItems ?? 2, 2),
      });
    case 'string':
      if (node.format === 'date-time') return fc.constant('2026-12-03T00:00:00Z');
      if (node.pattern) {
        const pattern = new RegExp(node.pattern, 'u');
        return fc.constantFrom(
          ...['a', 'a1', 'IPv6', '10.0.0.0/8', 'x-y'].filter((s) => pattern.test(s)),
          'a',
        );
      }
      return fc.constantFrom('a', 'b', 'True', 'Ready', '');
    case 'integer':
      return fc.integer({ min: node.minimum ?? 0, max: node.maximum ?? 100 });
    case 'number':
      return fc.double({ min: node.minimum ?? 0, max: node.maximum ?? 100, noNaN: true });
    case 'boolean':
      return fc.boolean();
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/** A change to one property of `side`: a schema-shaped value, any JSON, null, an unknown field or its removal. */
function edit(node: SchemaNode | undefined): fc.Arbitrary<(side: unknown) => unknown> {
  const keys = [...Object.keys(node?.properties ?? {}), 'bogus'];
  return fc
    .tuple(
      fc.constantFrom(...keys),
      fc.oneof(
        {
          weight: 4,
          arbitrary: fc.constantFrom(...keys).chain((key) => valueFor(node?.properties?.[key], 1)),
        },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
    )
    .map(([key, value]) => (side: unknown) => {
      const next: Record<string, unknown> = { ...(side as Record<string, unknown>) };
      if (value === undefined) delete next[key];
      else next[key] = asDecoded(value);
      return next;
    });
}

/** `value` as a decoded request body holds it (fast-check builds some objects without a prototype). */
function asDecoded(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

const KINDS = [
  'NetworkBinding',
  'NetworkInterface',
  'NetworkInterfaceClaim',
  'NetworkContext',
  'Subnet',
  'ResourceBinding',
  'Work',
  'Cluster',
];

describe('admitted subtrees: a write carrying an admitted side again gets the answer of the full path', () => {
  for (const kind of KINDS) {
    const crd = allCrds.find((c) => c.spec.names.kind === kind);
    assert.ok(crd, kind);
    const type = typesOfCrd(crd as unknown as KubeObject)[0];
    const schema = type.schema as SchemaNode;
    const apiVersion = `${type.group}/${type.version}`;
    const objectOf = (spec: unknown, status: unknown): KubeObject => ({
      apiVersion,
      kind,
      metadata: { name: 'o', namespace: 'ns', uid: 'u', generation: 1 },
      ...(spec === undefined ? {} : { spec }),
      ...(status === undefined ? {} : { status }),
    });

    it(`${kind}: random spec and status edits, shortcut == full validation`, () => {
      let shortcuts = 0;
      let runs = 0;
      fc.assert(
        fc.property(
          valueFor(schema.properties?.spec, 1),
          valueFor(schema.properties?.status, 1),
          fc.constantFrom('spec', 'status'),
          edit(schema.properties?.spec),
          edit(schema.properties?.status),
          fc.constantFrom<AdmissionRequest['fieldValidation']>('Strict', 'Warn', 'Ignore'),
          (spec, status, side, specEdit, statusEdit, fieldValidation) => {
            runs++;
            // What is stored: admitted when the schema takes it (its sides then recorded), else as
            // written under an older schema (nothing recorded).
            const written = objectOf(asDecoded(spec), asDecoded(status));
            const created = outcome(type, { object: written }) as { object?: KubeObject };
            const stored = created.object ?? written;
            const next =
              side === 'spec'
                ? { ...stored, spec: specEdit(stored.spec) }
                : { ...stored, status: statusEdit(stored.status) };
            const unchanged = side === 'spec' ? 'status' : 'spec';
            if (isAdmitted(schema.properties?.[unchanged], stored[unchanged])) shortcuts++;
            const fast = outcome(type, { operation: 'UPDATE', object: next, old: stored, fieldValidation });
            const full = outcome(type, {
              operation: 'UPDATE',
              object: structuredClone(next),
              old: structuredClone(stored),
              fieldValidation,
            });
            assert.deepEqual(fast, full);
          },
        ),
        { numRuns: 150, seed: 14 },
      );
      // The property says something only if the shortcut was taken in a good share of the runs.
      assert.ok(shortcuts >= 10, `${kind}: shortcut taken in ${shortcuts} of ${runs} runs`);
    });
  }
});

describe('admitted subtrees: what is skipped and what is not', () => {
  const schema: SchemaNode = {
    type: 'object',
    required: ['spec', 'tier'],
    properties: {
      apiVersion: { type: 'string' },
      tier: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        required: ['count'],
        properties: {
          count: { type: 'integer', minimum: 0 },
          tags: { type: 'array', items: { type: 'string' } },
        },
        'x-kubernetes-validations': [
          { rule: 'oldSelf.count < 3', message: 'count was 3 or more' },
          { rule: 'self.count < 100', message: 'count is 100 or more' },
        ],
      },
      status: { type: 'object', properties: { phase: { type: 'string', enum: ['Pending', 'Ready'] } } },
    },
  };
  const type = {
    group: 'example.com',
    version: 'v1',
    kind: 'Widget',
    plural: 'widgets',
    statusSubresource: true,
    schema,
    customResource: { crdName: 'widgets.example.com', version: 'v1' },
  } as ResourceType;
  const widget = (spec: unknown, status?: unknown): KubeObject => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'ns' },
    tier: 'gold',
    spec,
    ...(status === undefined ? {} : { status }),
  });

  it('records the spec a create admits unchanged, and keeps it as the same object on a status write', () => {
    const stored = plugin.admit(request(type, { object: widget({ count: 1, tags: ['a'] }) }));
    assert.ok(isAdmitted(schema.properties!.spec, stored.spec));
    const next = plugin.admit(
      request(type, { operation: 'UPDATE', object: { ...stored, status: { phase: 'Ready' } }, old: stored }),
    );
    assert.equal(next.spec, stored.spec);
    assert.deepEqual(next.status, { phase: 'Ready' });
  });

  it('does not record a side that pruning changed', () => {
    const stored = plugin.admit(
      request(type, { object: widget({ count: 1, bogus: true }), fieldValidation: 'Ignore' }),
    );
    assert.deepEqual(stored.spec, { count: 1 });
    const input = widget({ count: 1, bogus: true });
    plugin.admit(request(type, { object: input, fieldValidation: 'Ignore' }));
    assert.equal(isAdmitted(schema.properties!.spec, input.spec), false);
  });

  describe('a side a create’s defaulting filled in', () => {
    const spec = schema.properties!.spec;
    const defaulted: SchemaNode = {
      ...schema,
      properties: {
        ...schema.properties,
        spec: {
          ...spec,
          properties: {
            ...spec.properties,
            size: { type: 'integer', default: 3 },
            // A default holding a field the schema does not declare: pruning it again drops `b`.
            extra: { type: 'object', properties: { a: { type: 'integer' } } },
          },
        },
      },
    };
    const defaultedType = { ...type, schema: defaulted } as ResourceType;
    const specNode = defaulted.properties!.spec;

    it('is recorded once pruning and defaulting it again give it back itself', () => {
      const stored = plugin.admit(request(defaultedType, { object: widget({ count: 1 }) }));
      assert.deepEqual(stored.spec, { count: 1, size: 3 });
      assert.ok(isAdmitted(specNode, stored.spec));
      const next = plugin.admit(
        request(defaultedType, {
          operation: 'UPDATE',
          object: { ...stored, status: { phase: 'Ready' } },
          old: stored,
        }),
      );
      assert.equal(next.spec, stored.spec);
    });

    it('is not recorded when pruning it again would drop a field, nor on an update', () => {
      const leaky: SchemaNode = {
        ...defaulted,
        properties: {
          ...defaulted.properties,
          spec: {
            ...specNode,
            properties: {
              ...specNode.properties,
              extra: { ...specNode.properties!.extra, default: { a: 1, b: 2 } },
            },
          },
        },
      };
      const leakyType = { ...type, schema: leaky } as ResourceType;
      const stored = plugin.admit(request(leakyType, { object: widget({ count: 1 }) }));
      assert.deepEqual(stored.spec, { count: 1, size: 3, extra: { a: 1, b: 2 } });
      assert.equal(isAdmitted(leaky.properties!.spec, stored.spec), false);

      const old = plugin.admit(request(defaultedType, { object: widget({ count: 1, size: 3 }) }));
      const updated = plugin.admit(
        request(defaultedType, { operation: 'UPDATE', object: widget({ count: 2 }), old }),
      );
      assert.deepEqual(updated.spec, { count: 2, size: 3 });
      assert.equal(isAdmitted(specNode, updated.spec), false);
    });
  });

  it('still evaluates a transition rule in an unchanged, recorded spec', () => {
    const stored = plugin.admit(request(type, { object: widget({ count: 5 }) }));
    assert.ok(isAdmitted(schema.properties!.spec, stored.spec));
    const statusWrite = (old: KubeObject) =>
      outcome(type, { operation: 'UPDATE', object: { ...old, status: { phase: 'Ready' } }, old });
    const fast = statusWrite(stored) as { message?: string };
    assert.match(fast.message ?? '', /spec: Invalid value: "object": count was 3 or more/);
    assert.deepEqual(fast, statusWrite(structuredClone(stored)));
  });

  it('reuses a rule that held on an unchanged side only for that same object as self and oldSelf', () => {
    const stored = plugin.admit(request(type, { object: widget({ count: 1 }) }));
    const update = (object: KubeObject, old: KubeObject) =>
      outcome(type, { operation: 'UPDATE', object, old }) as { message?: string };
    // The status write holds `oldSelf.count < 3` with the stored spec as both self and oldSelf.
    assert.equal(update({ ...stored, status: { phase: 'Ready' } }, stored).message, undefined);
    // The same spec as self against another oldSelf is evaluated afresh, and fails.
    const before = { ...stored, spec: { count: 4 } };
    assert.match(update(stored, before).message ?? '', /count was 3 or more/);
  });

  it('reports the errors of the changed side in the order and wording of the whole schema', () => {
    const stored = plugin.admit(request(type, { object: widget({ count: 1 }) }));
    const write = (old: KubeObject, object: KubeObject) =>
      outcome(type, { operation: 'UPDATE', object, old });
    const next = { ...stored, status: { phase: 'Gone' } };
    const fast = write(stored, next) as { message?: string };
    assert.match(fast.message ?? '', /status\.phase: Unsupported value: "Gone"/);
    assert.deepEqual(fast, write(structuredClone(stored), structuredClone(next)));
    // The root's own errors (a missing required property) come first, as the whole schema has them.
    const noTier: KubeObject = { ...stored, status: { phase: 'Gone' } };
    delete noTier.tier;
    const both = write(stored, noTier) as { message?: string };
    assert.match(both.message ?? '', /tier: Required value, status\.phase: Unsupported value/);
    assert.deepEqual(both, write(structuredClone(stored), structuredClone(noTier)));
  });
});
