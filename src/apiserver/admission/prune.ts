/**
 * Pruning: what of a custom resource survives its schema, as the apiextensions-apiserver decodes
 * it — every field the schema does not declare is dropped and reported by path.
 *
 * Guarantees: the input is never mutated (subtrees kept whole, such as undeclared fields under
 * `x-kubernetes-preserve-unknown-fields`, are shared with it, not copied): below the object's root,
 * an object or list from which nothing is dropped is returned itself, and a subtree recorded as
 * admitted under its node (admitted-subtrees.ts) is returned without walking it. The root and its
 * `metadata` are always new objects. At the object's root and at
 * every `x-kubernetes-embedded-resource` node, `apiVersion` and `kind` (strings) are kept and
 * `metadata` is coerced to ObjectMeta: its unknown keys are dropped and reported like any other
 * field (`metadata.foo`). Under `x-kubernetes-preserve-unknown-fields` undeclared fields are kept
 * while declared ones are still pruned inside. Reported paths are sorted, as the real server sorts
 * them, e.g. `spec.items[0].bogus`.
 * Caveat: metadata fields of the wrong type are kept (the real server drops them); the server's
 * own metadata validation refuses most of them.
 */
import type { KubeObject } from '../objects.ts';
import { isPlainObject } from '../objects.ts';
import { isAdmitted } from './admitted-subtrees.ts';
import {
  OBJECT_META_FIELDS,
  childPath,
  fieldSchema,
  indexPath,
  isEmbeddedResource,
  type SchemaNode,
} from './schema-node.ts';

export interface Pruned {
  object: KubeObject;
  /** The dropped fields' paths, sorted. */
  unknownFields: string[];
}

export function pruneObject(object: KubeObject, schema: SchemaNode): Pruned {
  const unknownFields: string[] = [];
  const pruned = prune(object, schema, '', true, unknownFields) as KubeObject;
  return { object: pruned, unknownFields: unknownFields.sort() };
}

/**
 * Whether pruning drops nothing from `value`, the property `key` of an object's root under its
 * `node`: pruning it gives `value` itself back.
 */
export function prunesNothing(value: unknown, node: SchemaNode, key: string): boolean {
  return prune(value, node, key, isEmbeddedResource(node), []) === value;
}

function prune(
  value: unknown,
  node: SchemaNode | undefined,
  path: string,
  resourceRoot: boolean,
  unknown: string[],
): unknown {
  if ((!resourceRoot || isEmbeddedResource(node)) && isAdmitted(node, value)) return value;
  if (node?.['x-kubernetes-preserve-unknown-fields'])
    return keepUnknown(value, node, path, resourceRoot, unknown);
  if (Array.isArray(value))
    return sameItems(
      value,
      value.map((item, i) => prune(item, node?.items, indexPath(path, i), false, unknown)),
    );
  if (!isPlainObject(value)) return value;
  const embedded = resourceRoot || isEmbeddedResource(node);
  const kept: Record<string, unknown> = {};
  const objectRoot = resourceRoot && path === '';
  let same = !objectRoot;
  for (const [key, field] of Object.entries(value)) {
    const fieldPath = childPath(path, key);
    if (embedded && isTypeMeta(key, field)) {
      kept[key] = field;
    } else if (embedded && key === 'metadata' && isPlainObject(field)) {
      kept[key] = coerceObjectMeta(field, fieldPath, unknown, objectRoot);
    } else {
      const child = fieldSchema(node, key);
      if (child) kept[key] = prune(field, child, fieldPath, isEmbeddedResource(child), unknown);
      else {
        unknown.push(fieldPath);
        same = false;
      }
    }
    if (kept[key] !== field) same = false;
  }
  return same ? value : kept;
}

/** `list` itself when `mapped` holds the same items, else `mapped`. */
function sameItems(list: unknown[], mapped: unknown[]): unknown[] {
  return mapped.every((item, i) => item === list[i]) ? list : mapped;
}

/** Under x-kubernetes-preserve-unknown-fields: undeclared fields stay, declared ones are pruned. */
function keepUnknown(
  value: unknown,
  node: SchemaNode,
  path: string,
  resourceRoot: boolean,
  unknown: string[],
): unknown {
  if (Array.isArray(value)) {
    const items = node.items;
    return items
      ? sameItems(
          value,
          value.map((item, i) => keepUnknown(item, items, indexPath(path, i), false, unknown)),
        )
      : value;
  }
  if (!isPlainObject(value)) return value;
  const embedded = resourceRoot || isEmbeddedResource(node);
  const kept: Record<string, unknown> = {};
  const objectRoot = resourceRoot && path === '';
  let same = !objectRoot;
  for (const [key, field] of Object.entries(value)) {
    const fieldPath = childPath(path, key);
    const child = fieldSchema(node, key);
    if (embedded && key === 'metadata' && isPlainObject(field))
      kept[key] = coerceObjectMeta(field, fieldPath, unknown, objectRoot);
    else if (embedded && isTypeMeta(key, field)) kept[key] = field;
    else kept[key] = child ? prune(field, child, fieldPath, isEmbeddedResource(child), unknown) : field;
    if (kept[key] !== field) same = false;
  }
  return same ? value : kept;
}

function isTypeMeta(key: string, value: unknown): boolean {
  return (key === 'apiVersion' || key === 'kind') && typeof value === 'string';
}

/** ObjectMeta's fields of `meta`: a new object at the root, else `meta` itself when it has no other. */
function coerceObjectMeta(
  meta: Record<string, unknown>,
  path: string,
  unknown: string[],
  objectRoot: boolean,
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  let same = !objectRoot;
  for (const [key, field] of Object.entries(meta)) {
    if (OBJECT_META_FIELDS.has(key)) kept[key] = field;
    else {
      unknown.push(childPath(path, key));
      same = false;
    }
  }
  return same ? meta : kept;
}
