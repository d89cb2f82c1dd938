/**
 * Schema validation: a custom resource checked against its structural schema with ajv, each
 * failure worded as the Kubernetes API server words it (kube-openapi's messages, converted to
 * field errors the way apiextensions-apiserver converts them).
 *
 * Guarantees: a schema is translated to JSON Schema and compiled synchronously once per content:
 * the same CRD installed in a thousand planes (each its own schema object) compiles once. At most
 * `MAX_DISTINCT_SCHEMAS` compilations are kept; beyond that the cache starts over. The OpenAPI
 * v3.0 dialect is honoured: `nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`,
 * `x-kubernetes-int-or-string` (integer or string, named `integer,string` in messages); every
 * `x-kubernetes-*` keyword and annotation is left out of the translation, and only the formats
 * of formats.ts are checked. All failures are reported, not
 * just the first. When a property of the object's root was recorded as admitted under its node
 * (admitted-subtrees.ts), the root's own keywords and each other property are validated on their
 * own and that property not again; the errors are those, in the order, of the whole schema.
 * Messages, for a field `spec.f`:
 *
 *   type      spec.f: Invalid value: "string": spec.f in body must be of type integer: "string"
 *   required  spec.f: Required value
 *   enum      spec.f: Unsupported value: "huge": supported values: "small", "large"
 *   minimum   spec.f: Invalid value: -1: spec.f in body should be greater than or equal to 0
 *   maxLength spec.f: Too long: may not be more than 3 bytes
 *   maxItems  spec.f: Too many: 3: must have at most 2 items
 *   pattern   spec.f: Invalid value: "X": spec.f in body should match '^[a-z]+$'
 *   format    spec.f: Invalid value: "x": spec.f in body must be of type date-time: "x"
 *
 * Caveat: `pattern` is compiled as a JavaScript regular expression (unicode mode), not RE2; the
 * two agree on the syntax CRDs use. A pattern JavaScript cannot compile makes every write of the
 * kind fail with the compile error (the real server would have refused the CRD).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { formatValue, invalidValue, notSupported, required, type FieldError } from '../errors.ts';
import { isPlainObject } from '../objects.ts';
import { isAdmitted } from './admitted-subtrees.ts';
import { FORMATS } from './formats.ts';
import {
  childPath,
  displayPath,
  indexPath,
  isIntOrString,
  mapValueSchema,
  type SchemaNode,
} from './schema-node.ts';

interface CompiledSchema {
  validate: ValidateFunction;
  /** Each translated node → the schema node it came from, to word messages from the original. */
  origins: WeakMap<object, SchemaNode>;
}

export const MAX_DISTINCT_SCHEMAS = 1000;
const compiled = new WeakMap<SchemaNode, CompiledSchema>();
const compiledByContent = new Map<string, CompiledSchema>();
/**
 * Checks each translated schema against JSON Schema's meta-schema, which it compiles once. Every
 * compiling instance would otherwise compile the meta-schema again: that was two thirds of the
 * cost of compiling a CRD's schema, paid by the first write of each kind (bench/README.md).
 */
const metaSchemaCheck = new Ajv({ strict: false });

export function validateAgainstSchema(object: unknown, schema: SchemaNode): FieldError[] {
  const split = rootSplit(schema);
  if (split && isPlainObject(object) && split.properties.some(([key, node]) => isAdmitted(node, object[key])))
    return validateByProperty(object, split);
  return errorsOf(object, compiledSchema(schema), '');
}

/**
 * Compiles now what validating an object against `schema` compiles at its first use: the whole
 * schema and, for a root validated property by property, its own keywords and each property's
 * schema. Throws as that first use would (a pattern JavaScript cannot compile).
 */
export function prepareValidation(schema: SchemaNode): void {
  compiledSchema(schema);
  const split = rootSplit(schema);
  if (!split) return;
  compiledSchema(split.own);
  for (const [, node] of split.properties) compiledSchema(node);
}

/** Whether `schema`'s validator is compiled (by a write, or by prepareValidation). */
export function isValidationCompiled(schema: SchemaNode): boolean {
  return compiled.has(schema);
}

function errorsOf(value: unknown, compiled: CompiledSchema, base: string): FieldError[] {
  const { validate, origins } = compiled;
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => fieldError(error, value, origins, base));
}

/** A root schema read as its own keywords and one schema per property. */
interface RootSplit {
  /** The root's `type` and `required`: everything ajv checks at the root itself. */
  own: SchemaNode;
  properties: [string, SchemaNode][];
}

/** The keywords a root may have for validateByProperty to answer as the whole schema does. */
const SPLIT_ROOT_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'x-kubernetes-validations',
]);
const rootSplits = new WeakMap<SchemaNode, RootSplit | null>();

function rootSplit(schema: SchemaNode): RootSplit | null {
  let split = rootSplits.get(schema);
  if (split === undefined) {
    const simple =
      schema.properties !== undefined &&
      (schema.type === undefined || schema.type === 'object') &&
      Object.keys(schema).every((keyword) => SPLIT_ROOT_KEYWORDS.has(keyword));
    split = simple
      ? {
          own: {
            ...(schema.type ? { type: schema.type } : {}),
            ...(schema.required ? { required: schema.required } : {}),
          },
          properties: Object.entries(schema.properties ?? {}),
        }
      : null;
    rootSplits.set(schema, split);
  }
  return split;
}

/**
 * The schema errors of `object` (a plain object) as the whole root schema reports them, with each
 * property validated by its own schema, in the order ajv reports them — the root's own keywords,
 * then the properties in the schema's order — and a property recorded as admitted under its node
 * (admitted-subtrees.ts: it validated clean before) not validated again.
 */
function validateByProperty(object: Record<string, unknown>, split: RootSplit): FieldError[] {
  const errors = errorsOf(object, compiledSchema(split.own), '');
  for (const [key, node] of split.properties) {
    const value = object[key];
    if (value === undefined || isAdmitted(node, value)) continue;
    errors.push(...errorsOf(value, compiledSchema(node), key));
  }
  return errors;
}

function compiledSchema(schema: SchemaNode): CompiledSchema {
  let entry = compiled.get(schema);
  if (entry) return entry;
  const content = JSON.stringify(schema);
  entry = compiledByContent.get(content);
  if (!entry) {
    const origins = new WeakMap<object, SchemaNode>();
    const translated = toJsonSchema(schema, origins);
    if (metaSchemaCheck.validateSchema(translated) !== true)
      throw new Error(`schema is invalid: ${metaSchemaCheck.errorsText()}`);
    const ajv = new Ajv({
      allErrors: true,
      verbose: true,
      strict: false,
      formats: FORMATS,
      validateSchema: false,
    });
    entry = { validate: ajv.compile(translated), origins };
    if (compiledByContent.size >= MAX_DISTINCT_SCHEMAS) compiledByContent.clear();
    compiledByContent.set(content, entry);
  }
  compiled.set(schema, entry);
  return entry;
}

const COPIED_KEYWORDS = [
  'required',
  'pattern',
  'minimum',
  'maximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
] as const;

/** The JSON Schema (draft 7, as ajv reads it) equivalent of a structural schema node. */
function toJsonSchema(node: SchemaNode, origins: WeakMap<object, SchemaNode>): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  origins.set(json, node);
  const types = isIntOrString(node) ? ['integer', 'string'] : node.type ? [node.type] : [];
  if (node.nullable) types.push('null');
  if (types.length > 0) json.type = types.length === 1 ? types[0] : types;
  for (const keyword of COPIED_KEYWORDS) if (node[keyword] !== undefined) json[keyword] = node[keyword];
  if (node.exclusiveMinimum === true && node.minimum !== undefined) {
    json.exclusiveMinimum = node.minimum;
    delete json.minimum;
  }
  if (node.exclusiveMaximum === true && node.maximum !== undefined) {
    json.exclusiveMaximum = node.maximum;
    delete json.maximum;
  }
  if (node.enum) json.enum = node.nullable && !node.enum.includes(null) ? [...node.enum, null] : node.enum;
  if (node.format && Object.hasOwn(FORMATS, node.format)) json.format = node.format;
  if (node.properties) {
    json.properties = Object.fromEntries(
      Object.entries(node.properties).map(([key, property]) => [key, toJsonSchema(property, origins)]),
    );
  }
  const values = mapValueSchema(node);
  if (values) json.additionalProperties = toJsonSchema(values, origins);
  if (node.items) json.items = toJsonSchema(node.items, origins);
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (branches) json[keyword] = branches.map((branch) => toJsonSchema(branch, origins));
  }
  if (node.not) json.not = toJsonSchema(node.not, origins);
  return json;
}

const COMPARISONS: Record<string, string> = {
  '>=': 'greater than or equal to',
  '>': 'greater than',
  '<=': 'less than or equal to',
  '<': 'less than',
};

function fieldError(
  error: ErrorObject,
  root: unknown,
  origins: WeakMap<object, SchemaNode>,
  base: string,
): FieldError {
  const path = instancePath(error.instancePath, root, base);
  const field = displayPath(path);
  const origin = origins.get(error.parentSchema as object) ?? {};
  const data: unknown = error.data;
  const params: Record<string, unknown> = error.params;
  switch (error.keyword) {
    case 'type': {
      const actual = jsonType(data);
      return typeInvalid(
        field,
        actual,
        `${field} in body must be of type ${typeName(origin)}: ${JSON.stringify(actual)}`,
      );
    }
    case 'required':
      return required(displayPath(childPath(path, String(params.missingProperty))));
    case 'enum':
      return notSupported(
        field,
        data,
        (origin.enum ?? []).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
      );
    case 'format':
      return typeInvalid(
        field,
        data,
        `${field} in body must be of type ${params.format}: ${JSON.stringify(data)}`,
      );
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return invalidValue(
        field,
        data,
        `${field} in body should be ${COMPARISONS[String(params.comparison)]} ${params.limit}`,
      );
    case 'multipleOf':
      return invalidValue(field, data, `${field} in body should be a multiple of ${params.multipleOf}`);
    case 'minLength':
      return invalidValue(field, data, `${field} in body should be at least ${params.limit} chars long`);
    case 'maxLength':
      return tooLong(field, Number(params.limit));
    case 'pattern':
      return invalidValue(field, data, `${field} in body should match '${params.pattern}'`);
    case 'minItems':
      return invalidValue(
        field,
        (data as unknown[]).length,
        `${field} in body should have at least ${params.limit} items`,
      );
    case 'maxItems':
      return tooMany(field, (data as unknown[]).length, Number(params.limit));
    case 'minProperties':
      return invalidValue(
        field,
        propertyCount(data),
        `${field} in body should have at least ${params.limit} properties`,
      );
    case 'maxProperties':
      return tooMany(field, propertyCount(data), Number(params.limit));
    case 'anyOf':
      return invalidValue(field, '', `${field} in body must validate at least one schema (anyOf)`);
    case 'oneOf':
      return invalidValue(field, '', `${field} in body must validate one and only one schema (oneOf)`);
    case 'not':
      return invalidValue(field, '', `${field} in body must not validate the schema (not)`);
    default:
      return invalidValue(field, data, `${field} in body ${error.message ?? 'is invalid'}`);
  }
}

/**
 * A JSON pointer into `root` as a field path below `base` (the path of `root`): indexes of lists
 * as `[i]`, keys as `.key`.
 */
function instancePath(pointer: string, root: unknown, base: string): string {
  let path = base;
  let value = root;
  for (const segment of pointer.split('/').slice(1)) {
    const key = segment.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(value)) {
      path = indexPath(path, Number(key));
      value = value[Number(key)];
    } else {
      path = childPath(path, key);
      value = isPlainObject(value) ? value[key] : undefined;
    }
  }
  return path;
}

/** The type names a node declares, as kube-openapi joins them. */
function typeName(node: SchemaNode): string {
  return isIntOrString(node) ? 'integer,string' : (node.type ?? '');
}

/** The JSON type of a value as kube-openapi names it; integral numbers are `integer`. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function propertyCount(value: unknown): number {
  return isPlainObject(value) ? Object.keys(value).length : 0;
}

function typeInvalid(field: string, value: unknown, detail: string): FieldError {
  return {
    reason: 'FieldValueTypeInvalid',
    field,
    detail: `Invalid value: ${formatValue(value)}: ${detail}`,
  };
}

function tooLong(field: string, limit: number): FieldError {
  return {
    reason: 'FieldValueTooLong',
    field,
    detail: `Too long: may not be more than ${limit} ${limit === 1 ? 'byte' : 'bytes'}`,
  };
}

function tooMany(field: string, actual: number, limit: number): FieldError {
  return {
    reason: 'FieldValueTooMany',
    field,
    detail: `Too many: ${actual}: must have at most ${limit} ${limit === 1 ? 'item' : 'items'}`,
  };
}
