/**
 * Schema admission: a custom resource's write shaped and checked by its CRD version's structural
 * schema, in the order apiextensions-apiserver applies it — prune, default, validate, then the
 * `x-kubernetes-validations` rules.
 *
 * Guarantees, for every CREATE and UPDATE (DELETE passes untouched):
 * 1. Fields the schema does not declare are dropped (prune.ts), for built-in kinds too (their
 *    schemas in resources/builtins.ts are closed where Kubernetes' Go types are).
 *    `fieldValidation` decides what is said about them and about the body's duplicate fields
 *    (strict-decoding.ts): `Strict` refuses them with one 400 — `Widget in version "v1" cannot be
 *    handled as a Widget: strict decoding error: unknown field "spec.bogus"`; `Warn` adds one
 *    warning per field; `Ignore` drops them silently. Steps 2–4 apply to custom resources only.
 * 2. Schema defaults are applied (defaults.ts), also to `status`: the server has already dropped
 *    a client's `status` on create when status is a subresource, so a `status` default seeds it.
 *    The old object of an update is defaulted too, so transition rules compare like with like.
 * 3. The whole object is validated against the schema (validate.ts) and its list types
 *    (list-type.ts) — also on `/status` writes, where the spec is the stored one.
 * 4. The `x-kubernetes-validations` rules run (validation-rules.ts) — unless step 3 found a
 *    wrong type, a missing required field, an unsupported enum value or a value too long or with
 *    too many items, in which case, as in Kubernetes, they are skipped and one more error says so.
 * All failures of steps 3 and 4 make one 422 Invalid; nothing is changed by a refused write.
 * Everything is synchronous: schemas and rules are compiled once the kind is served, in the
 * background (schema-preparation.ts), or at their first use if that comes sooner, and cached.
 * A property of the root that an earlier write brought through steps 1–4 unchanged (or, on a
 * create, that defaulting filled in and that pruning and defaulting again give back itself), and
 * that a write carries again as the same object (a `/status` write's spec, a spec update's
 * status), is not pruned, defaulted or validated again, except for its transition rules: the
 * answer is the same (admitted-subtrees.ts).
 * Caveat: unknown fields are judged on the object the write would store, not on the request body
 * alone — after a schema stops declaring a field, a Strict patch of an object still holding it is
 * refused, where the real server (which also prunes on read) would not see the field.
 */
import type { AdmissionPlugin, AdmissionRequest } from './plugins.ts';
import { invalid, invalidValue, type FieldError } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import { recordAdmitted } from './admitted-subtrees.ts';
import { withDefaults } from './defaults.ts';
import { validateListTypes } from './list-type.ts';
import { pruneObject, prunesNothing } from './prune.ts';
import { reportStrictDecoding } from './strict-decoding.ts';
import type { SchemaNode } from './schema-node.ts';
import { validateAgainstSchema } from './validate.ts';
import { validateRules } from './validation-rules.ts';

export const name = 'schema';

export const RULES_NOT_CHECKED =
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

/** Field errors after which the rules are not evaluated (Kubernetes' `hasBlockingErr`). */
const BLOCKING: ReadonlySet<string> = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

export function schemaAdmission(): AdmissionPlugin {
  return { name, admit };
}

function admit(request: AdmissionRequest): KubeObject {
  const { type, operation } = request;
  if (operation !== 'CREATE' && operation !== 'UPDATE') return request.object;
  const schema = type.schema as SchemaNode;
  const { object: pruned, unknownFields } = pruneObject(request.object, schema);
  reportStrictDecoding(request, unknownFields);
  // A built-in kind's content is checked by the server itself (validation/builtin-kinds.ts).
  if (!type.customResource) return pruned;
  const object = withDefaults(pruned, schema) as KubeObject;
  const old = request.old && withDefaults(request.old, schema);
  const errors = validateObject(object, old, schema);
  if (errors.length > 0) throw invalid(type.kind, type.group, object.metadata.name ?? '', errors);
  recordSettledProperties(request.object, object, schema, operation === 'CREATE');
  return object;
}

/**
 * Records each property of the root (spec, status…) that validated clean and that pruning and
 * defaulting leave as it is, so that the next write carrying it again need not walk it
 * (admitted-subtrees.ts): one that came through them as the same object, and — on a create — one
 * they changed (a default filled in) once pruning and defaulting it again are seen to give it back
 * itself. Without the latter, an object created with defaults had the side its first update does
 * not change (a claim's spec, when its finalizer is added) admitted all over again. `metadata`
 * changes with every write and is not recorded.
 */
function recordSettledProperties(
  input: KubeObject,
  admitted: KubeObject,
  schema: SchemaNode,
  created: boolean,
): void {
  const properties = schema.properties ?? {};
  for (const key in properties) {
    if (key === 'metadata' || !Object.hasOwn(properties, key) || !Object.hasOwn(admitted, key)) continue;
    const node = properties[key];
    const value = admitted[key];
    if (value === input[key] || (created && isSettled(value, node, key))) recordAdmitted(node, value);
  }
}

/** Whether pruning and defaulting `value`, the property `key` of the root, give it back itself. */
function isSettled(value: unknown, node: SchemaNode, key: string): boolean {
  return prunesNothing(value, node, key) && withDefaults(value, node) === value;
}

/** Steps 3 and 4: schema and list-type errors, then the rules unless an error blocks them. */
function validateObject(object: unknown, old: unknown, schema: SchemaNode): FieldError[] {
  const errors = [...validateAgainstSchema(object, schema), ...validateListTypes(object, schema)];
  if (errors.some((error) => BLOCKING.has(error.reason))) {
    return [...errors, invalidValue('<nil>', 'null', RULES_NOT_CHECKED)];
  }
  return [...errors, ...validateRules(object, old, schema)];
}
