import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AdmissionRequest } from './plugins.ts';
import { ApiError } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import { builtinTypes } from '../resources/builtins.ts';
import type { ResourceType } from '../resources/resource-type.ts';
import { RULES_NOT_CHECKED, schemaAdmission } from './schema-admission.ts';
import type { SchemaNode } from './schema-node.ts';

const SEED = {
  status: 'Unknown',
  reason: 'Pending',
  message: 'Waiting for controller',
  lastTransitionTime: '1970-01-01T00:00:00Z',
};
const reference: SchemaNode = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' } },
};

/** NetworkBinding-like: spec.network and spec.location immutable, a seeded status. */
const schema: SchemaNode = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['network', 'location'],
      properties: {
        network: {
          ...reference,
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec.network is immutable' }],
        },
        location: {
          ...reference,
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec.location is immutable' }],
        },
        mtu: { type: 'integer', default: 1460, minimum: 1300, maximum: 8856 },
        ipFamilies: {
          type: 'array',
          default: ['IPv6'],
          maxItems: 2,
          items: { type: 'string', enum: ['IPv4', 'IPv6'] },
          'x-kubernetes-validations': [
            {
              rule: 'self.all(f, self.exists_one(g, g == f))',
              message: 'Each address family may be listed at most once',
            },
          ],
        },
      },
    },
    status: {
      type: 'object',
      default: { conditions: [{ type: 'Ready', ...SEED }] },
      properties: {
        phase: { type: 'string', enum: ['Pending', 'Bound'] },
        conditions: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          items: {
            type: 'object',
            required: ['type', 'status'],
            properties: {
              type: { type: 'string' },
              status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
              reason: { type: 'string' },
              message: { type: 'string' },
              lastTransitionTime: { type: 'string', format: 'date-time' },
            },
          },
        },
      },
    },
  },
};

const bindingType = {
  group: 'networking.datumapis.com',
  version: 'v1alpha',
  kind: 'NetworkBinding',
  plural: 'networkbindings',
  statusSubresource: true,
  schema,
  customResource: { crdName: 'networkbindings.networking.datumapis.com', version: 'v1alpha' },
} as ResourceType;

const binding = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'networking.datumapis.com/v1alpha',
  kind: 'NetworkBinding',
  metadata: { name: 'b1', namespace: 'ns-1', uid: 'u1', generation: 1 },
  spec: { network: { name: 'vpc' }, location: { name: 'dfw' }, ...spec },
  ...extra,
});

function request(overrides: Partial<AdmissionRequest>): AdmissionRequest {
  return {
    operation: 'CREATE',
    type: bindingType,
    object: binding({}),
    dryRun: false,
    fieldValidation: 'Strict',
    warnings: [],
    related: [],
    ...overrides,
  };
}

const admit = (overrides: Partial<AdmissionRequest>) => schemaAdmission().admit(request(overrides));

/** The ApiError `run` throws. */
function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  assert.fail('the write was admitted');
}

describe('schema admission', () => {
  it('is named schema', () => {
    assert.equal(schemaAdmission().name, 'schema');
  });

  it('refuses unknown fields under Strict with one strict decoding error naming each', () => {
    const error = refusal(() =>
      admit({ object: binding({ bogus: 1, network: { name: 'vpc', extra: true } }) }),
    );
    assert.equal(error.code, 400);
    assert.equal(error.reason, 'BadRequest');
    assert.equal(
      error.message,
      'NetworkBinding in version "v1alpha" cannot be handled as a NetworkBinding: strict decoding error: unknown field "spec.bogus", unknown field "spec.network.extra"',
    );
  });

  it('warns once per unknown field under Warn and admits the pruned object', () => {
    const warnings: string[] = [];
    const object = admit({
      fieldValidation: 'Warn',
      warnings,
      object: binding({ bogus: 1 }, { metadata: { name: 'b1', colour: 'red' } }),
    });
    assert.deepEqual(warnings, ['unknown field "metadata.colour"', 'unknown field "spec.bogus"']);
    assert.equal((object.spec as Record<string, unknown>).bogus, undefined);
    assert.deepEqual(object.metadata, { name: 'b1' });
  });

  it('prunes silently under Ignore', () => {
    const warnings: string[] = [];
    const object = admit({ fieldValidation: 'Ignore', warnings, object: binding({ bogus: 1 }) });
    assert.deepEqual(warnings, []);
    assert.equal((object.spec as Record<string, unknown>).bogus, undefined);
  });

  it('defaults the spec and seeds status conditions on create', () => {
    const object = admit({ object: binding({}) });
    assert.deepEqual(object, {
      ...binding({ mtu: 1460, ipFamilies: ['IPv6'] }),
      status: { conditions: [{ type: 'Ready', ...SEED }] },
    });
  });

  it('leaves a status the object already has alone', () => {
    const status = { phase: 'Bound', conditions: [{ type: 'Ready', status: 'True' }] };
    const object = admit({ operation: 'UPDATE', object: binding({}, { status }), old: binding({}) });
    assert.deepEqual(object.status, status);
  });

  it('collects schema and list-type errors and rule failures into one 422', () => {
    const error = refusal(() => admit({ object: binding({ mtu: 100, ipFamilies: ['IPv6', 'IPv6'] }) }));
    assert.equal(error.code, 422);
    assert.equal(
      error.message,
      'NetworkBinding.networking.datumapis.com "b1" is invalid: [spec.mtu: Invalid value: 100: spec.mtu in body should be greater than or equal to 1300, spec.ipFamilies: Invalid value: "array": Each address family may be listed at most once]',
    );
    assert.deepEqual(error.details, {
      name: 'b1',
      group: 'networking.datumapis.com',
      kind: 'NetworkBinding',
      causes: [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.mtu',
          message: 'Invalid value: 100: spec.mtu in body should be greater than or equal to 1300',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.ipFamilies',
          message: 'Invalid value: "array": Each address family may be listed at most once',
        },
      ],
    });
  });

  it('skips the rules after a blocking error, and says so', () => {
    const error = refusal(() => admit({ object: binding({ mtu: 'big', ipFamilies: ['IPv6', 'IPv6'] }) }));
    assert.deepEqual(
      error.details?.causes?.map((c) => `${c.field}: ${c.message}`),
      [
        'spec.mtu: Invalid value: "string": spec.mtu in body must be of type integer: "string"',
        `<nil>: Invalid value: "null": ${RULES_NOT_CHECKED}`,
      ],
    );
  });

  it('refuses an update that changes an immutable reference', () => {
    const error = refusal(() =>
      admit({ operation: 'UPDATE', object: binding({ location: { name: 'ord' } }), old: binding({}) }),
    );
    assert.equal(
      error.message,
      'NetworkBinding.networking.datumapis.com "b1" is invalid: spec.location: Invalid value: "object": spec.location is immutable',
    );
  });

  it('validates the whole object on a status write, where the unchanged spec passes its transition rules', () => {
    const old = admit({ object: binding({}) });
    const next = { ...old, status: { phase: 'Bound', conditions: [{ type: 'Ready', status: 'True' }] } };
    assert.deepEqual(
      admit({ operation: 'UPDATE', subresource: 'status', object: next, old }).status,
      next.status,
    );
    const bad = {
      ...old,
      status: {
        phase: 'Lost',
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'Ready', status: 'False' },
        ],
      },
    };
    const error = refusal(() => admit({ operation: 'UPDATE', subresource: 'status', object: bad, old }));
    assert.deepEqual(
      error.details?.causes?.map((c) => `${c.field}: ${c.message}`),
      [
        'status.phase: Unsupported value: "Lost": supported values: "Pending", "Bound"',
        'status.conditions[1]: Duplicate value: map[string]interface {}{"type":"Ready"}',
        `<nil>: Invalid value: "null": ${RULES_NOT_CHECKED}`,
      ],
    );
  });

  it('compares transition rules against the old object with its defaults applied', () => {
    const withRule = structuredClone(schema);
    withRule.properties!.spec['x-kubernetes-validations'] = [
      { rule: 'self.mtu == oldSelf.mtu', message: 'mtu is immutable' },
    ];
    const type = { ...bindingType, schema: withRule } as ResourceType;
    const object = admit({ type, operation: 'UPDATE', object: binding({}), old: binding({}) });
    assert.equal((object.spec as Record<string, unknown>).mtu, 1460);
  });

  it('prunes a built-in kind by its closed schema, without defaulting or validating it', () => {
    const configMaps = builtinTypes.find((t) => t.kind === 'ConfigMap')!;
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: '1' },
      bogus: true,
    };
    assert.throws(
      () => admit({ type: configMaps, object }),
      (err: ApiError) =>
        err.code === 400 &&
        err.message ===
          'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
    );
    const warnings: string[] = [];
    const kept = admit({ type: configMaps, object, fieldValidation: 'Warn', warnings });
    assert.deepEqual(kept, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: '1' },
    });
    assert.deepEqual(warnings, ['unknown field "bogus"']);
  });

  it('keeps what an open built-in schema preserves (the CRD kind)', () => {
    const crds = builtinTypes.find((t) => t.kind === 'CustomResourceDefinition')!;
    const object = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'c' },
      spec: { x: 1 },
    };
    assert.deepEqual(admit({ type: crds, object }), object);
  });

  it('reports the body’s duplicate fields first, then unknown fields; a built-in create names a field both unknown and duplicated once', () => {
    const configMaps = builtinTypes.find((t) => t.kind === 'ConfigMap')!;
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      bogus: 2,
      data: { a: '2' },
    };
    const decoding = {
      problems: ['duplicate field "data.a"', 'duplicate field "bogus"'],
      duplicates: ['data.a', 'bogus'],
      patch: false,
    };
    assert.throws(
      () => admit({ type: configMaps, object, decoding }),
      (err: ApiError) =>
        err.message.endsWith('strict decoding error: duplicate field "data.a", unknown field "bogus"'),
    );
    assert.throws(
      () => admit({ type: configMaps, object, decoding: { ...decoding, patch: true } }),
      (err: ApiError) =>
        err.message.endsWith(
          'strict decoding error: duplicate field "data.a", duplicate field "bogus", unknown field "bogus"',
        ),
    );
    const warnings: string[] = [];
    admit({
      object: binding({}),
      fieldValidation: 'Warn',
      warnings,
      decoding: { ...decoding, problems: ['duplicate field "spec.network"'] },
    });
    assert.deepEqual(warnings, ['duplicate field "spec.network"']);
  });

  it('never changes the request’s object', () => {
    const object = binding({ bogus: 1 });
    const before = structuredClone(object);
    admit({ fieldValidation: 'Ignore', object });
    assert.deepEqual(object, before);
  });
});
