/**
 * Schema node: a CRD version's `openAPIV3Schema` as the admission steps read it, and the field
 * paths they report, spelled the way the Kubernetes API server spells them.
 *
 * Guarantees: nothing here mutates a schema. Paths are plain strings: `spec.items[0].name` for
 * properties and list items, `spec.labels[key]` for map keys where the real server uses
 * `Path.Key`, and `<nil>` for the object itself (as Go prints an empty `field.Path`).
 * Assumes: the schema is structural (spec/kube-api.md §12) — every node says what it holds through
 * `properties`, `additionalProperties`, `items` or `x-kubernetes-preserve-unknown-fields`; no
 * `$ref`. Nothing checks this; a non-structural schema is read as far as it goes.
 */
import { isPlainObject } from '../objects.ts';

/** One `x-kubernetes-validations` entry. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  allOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  not?: SchemaNode;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'granular' | 'atomic';
  'x-kubernetes-validations'?: ValidationRule[];
}

/** The fields of ObjectMeta; any other key under `metadata` is unknown. */
export const OBJECT_META_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** The schema of the map values under `node`, when it is a map (`additionalProperties` schema). */
export function mapValueSchema(node: SchemaNode | undefined): SchemaNode | undefined {
  return isPlainObject(node?.additionalProperties) ? node.additionalProperties : undefined;
}

/**
 * `reaches(node)`: whether `holds` is true of `node` or of any node under it that a walk of a
 * value follows (properties, list items, map values) — so that an admission step whose work is
 * confined to such nodes (defaults, list types) skips every subtree where it is false. Answers are
 * kept per node, as schemas are never mutated.
 */
export function reachesWhere(holds: (node: SchemaNode) => boolean): (node: SchemaNode) => boolean {
  const known = new WeakMap<SchemaNode, boolean>();
  const reaches = (node: SchemaNode): boolean => {
    let answer = known.get(node);
    if (answer === undefined) {
      const values = mapValueSchema(node);
      answer =
        holds(node) ||
        Object.values(node.properties ?? {}).some(reaches) ||
        (node.items !== undefined && reaches(node.items)) ||
        (values !== undefined && reaches(values));
      known.set(node, answer);
    }
    return answer;
  };
  return reaches;
}

/** The schema a key of an object under `node` is read with: its property, else the map value. */
export function fieldSchema(node: SchemaNode | undefined, key: string): SchemaNode | undefined {
  return (
    (node?.properties && Object.hasOwn(node.properties, key) ? node.properties[key] : undefined) ??
    mapValueSchema(node)
  );
}

export function isIntOrString(node: SchemaNode | undefined): boolean {
  return node?.['x-kubernetes-int-or-string'] === true || node?.format === 'int-or-string';
}

/** Whether `node` holds a whole object with its own apiVersion, kind and metadata. */
export function isEmbeddedResource(node: SchemaNode | undefined): boolean {
  return node?.['x-kubernetes-embedded-resource'] === true;
}

/** `default` as the real server reads it: a JSON null is no default. */
export function hasDefault(node: SchemaNode | undefined): node is SchemaNode & { default: unknown } {
  return node?.default !== undefined && node.default !== null;
}

/** The schema type a rule failure names (`Invalid value: "object"`); empty for int-or-string. */
export function schemaType(node: SchemaNode): string {
  return node.type ?? '';
}

export function childPath(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

export function keyPath(path: string, key: string): string {
  return `${path}[${key}]`;
}

/** A path as a cause's `field`: the object itself is `<nil>`. */
export function displayPath(path: string): string {
  return path || '<nil>';
}
