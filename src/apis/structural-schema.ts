/**
 * Structural schemas: a TypeBox schema rewritten as a Kubernetes `openAPIV3Schema` the API
 * server accepts in a CRD (kube-api.md §12).
 *
 * Guarantees, for every node of the result:
 * - it has a `type`, except an int-or-string node, which is `x-kubernetes-int-or-string: true`
 *   alone (TypeBox `Union([Integer, String])`);
 * - no `const` (a literal becomes a one-value `enum`; a union of literals one `enum`), no
 *   `patternProperties` (a Record becomes `additionalProperties`), no `additionalProperties:
 *   false`, no `$id`/`$schema`, no TypeBox symbols, no empty `required`;
 * - `x-kubernetes-*` keywords, `default`, bounds, patterns, formats and descriptions are kept
 *   as written; keys come out in one fixed order, so equal schemas print identically.
 * Anything else that cannot be structural (another union, `additionalProperties: true`, a node
 * with no type) throws, naming the path, so a wrong schema fails `npm run crds`, not a cluster.
 */
import type { TSchema } from '@sinclair/typebox';

export type JsonSchema = Record<string, unknown>;

/** Keys in print order; any other key follows, alphabetically. */
const KEY_ORDER = [
  'description',
  'type',
  'format',
  'enum',
  'default',
  'nullable',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'items',
  'properties',
  'additionalProperties',
  'required',
];

const DROPPED = new Set(['$id', '$schema']);

export function toStructural(schema: TSchema, path = '<root>'): JsonSchema {
  const node: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    switch (key) {
      case 'const':
        node.enum = [value];
        break;
      case 'anyOf':
        Object.assign(node, unionNode(value as TSchema[], path));
        break;
      case 'patternProperties':
        node.additionalProperties = recordValues(value as Record<string, TSchema>, path);
        break;
      case 'additionalProperties':
        if (value === true) throw new Error(`${path}: additionalProperties: true is not structural`);
        if (value !== false) node.additionalProperties = toStructural(value as TSchema, `${path}[*]`);
        break;
      case 'properties':
        node.properties = Object.fromEntries(
          Object.entries(value as Record<string, TSchema>).map(([name, property]) => [
            name,
            toStructural(property, `${path}.${name}`),
          ]),
        );
        break;
      case 'items':
        node.items = toStructural(value as TSchema, `${path}[]`);
        break;
      case 'required':
        if ((value as string[]).length > 0) node.required = [...(value as string[])];
        break;
      default:
        node[key] = structuredClone(value);
    }
  }
  if (node.type === undefined && node['x-kubernetes-int-or-string'] !== true) {
    throw new Error(`${path}: a structural schema node needs a type`);
  }
  return ordered(node);
}

/** A union of literals of one type → that type with an enum; integer|string → int-or-string. */
function unionNode(branches: TSchema[], path: string): JsonSchema {
  if (branches.every((branch) => 'const' in branch)) {
    const types = new Set(branches.map((branch) => branch.type as string));
    if (types.size !== 1) throw new Error(`${path}: an enum must hold values of one type`);
    return { type: [...types][0], enum: branches.map((branch) => branch.const as unknown) };
  }
  const types = branches.map((branch) => branch.type as string).sort();
  if (types.length === 2 && types[0] === 'integer' && types[1] === 'string') {
    return { 'x-kubernetes-int-or-string': true };
  }
  throw new Error(`${path}: only unions of literals and of integer|string are structural`);
}

function recordValues(patterns: Record<string, TSchema>, path: string): JsonSchema {
  const values = Object.values(patterns);
  if (values.length !== 1) throw new Error(`${path}: a map needs exactly one value schema`);
  return toStructural(values[0], `${path}[*]`);
}

function ordered(node: JsonSchema): JsonSchema {
  const rank = (key: string) => {
    const at = KEY_ORDER.indexOf(key);
    return at === -1 ? KEY_ORDER.length : at;
  };
  const keys = Object.keys(node).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((key) => [key, node[key]]));
}
