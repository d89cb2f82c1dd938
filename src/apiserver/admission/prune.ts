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
import { setField } from '../patch/json-object.ts';
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
    return mapItems(value, (item, i) => prune(item, node?.items, itemPath(item, path, i), false, unknown));
  if (!isPlainObject(value)) return value;
  const embedded = resourceRoot || isEmbeddedResource(node);
  const objectRoot = resourceRoot && path === '';
  return mapFields(value, objectRoot, (key, field) => {
    if (embedded && isTypeMeta(key, field)) return field;
    if (embedded && key === 'metadata' && isPlainObject(field))
      return coerceObjectMeta(field, childPath(path, key), unknown, objectRoot);
    const child = fieldSchema(node, key);
    if (child) return prune(field, child, fieldPath(field, path, key), isEmbeddedResource(child), unknown);
    unknown.push(childPath(path, key));
    return DROPPED;
  });
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
      ? mapItems(value, (item, i) => keepUnknown(item, items, itemPath(item, path, i), false, unknown))
      : value;
  }
  if (!isPlainObject(value)) return value;
  const embedded = resourceRoot || isEmbeddedResource(node);
  const objectRoot = resourceRoot && path === '';
  return mapFields(value, objectRoot, (key, field) => {
    if (embedded && key === 'metadata' && isPlainObject(field))
      return coerceObjectMeta(field, childPath(path, key), unknown, objectRoot);
    if (embedded && isTypeMeta(key, field)) return field;
    const child = fieldSchema(node, key);
    return child
      ? prune(field, child, fieldPath(field, path, key), isEmbeddedResource(child), unknown)
      : field;
  });
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
  return mapFields(meta, objectRoot, (key, field) => {
    if (OBJECT_META_FIELDS.has(key)) return field;
    unknown.push(childPath(path, key));
    return DROPPED;
  });
}

/** What a field's pruning returns for a field it drops. */
const DROPPED = Symbol('dropped');

/**
 * `object` with each field replaced by what `next` returns for it, or left out for DROPPED: the
 * object itself when nothing changed, unless `alwaysNew`. The copy begins at the first field
 * that changes, so an object pruning leaves whole costs no copy. An own `__proto__` key stays a
 * key of the copy. Callers spell a field's path only where they need it (a dropped field's
 * report, a nested value's pruning): pruning runs on every write, and a path, or a closure to
 * make one, for every field was most of what it allocated (bench/README.md, sessions 26 and 27).
 */
function mapFields(
  object: Record<string, unknown>,
  alwaysNew: boolean,
  next: (key: string, field: unknown) => unknown,
): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined = alwaysNew ? {} : undefined;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const field = object[key];
    const value = next(key, field);
    if (!copy && value !== field) {
      copy = {};
      for (const earlier in object) {
        if (earlier === key) break;
        if (Object.hasOwn(object, earlier)) setField(copy, earlier, object[earlier]);
      }
    }
    if (copy && value !== DROPPED) setField(copy, key, value);
  }
  return copy ?? object;
}

/** `list` itself when `next` returns every item itself, else the list of what it returned. */
function mapItems(list: unknown[], next: (item: unknown, index: number) => unknown): unknown[] {
  let copy: unknown[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const value = next(item, i);
    if (!copy && value !== item) copy = list.slice(0, i);
    copy?.push(value);
  }
  return copy ?? list;
}

/** The path of field `key` of the object at `path` when pruning may report under it (an object or a list); '' for a scalar. */
function fieldPath(value: unknown, path: string, key: string): string {
  return typeof value === 'object' && value !== null ? childPath(path, key) : '';
}

/** The path of item `index` of the list at `path`, as fieldPath. */
function itemPath(value: unknown, path: string, index: number): string {
  return typeof value === 'object' && value !== null ? indexPath(path, index) : '';
}
