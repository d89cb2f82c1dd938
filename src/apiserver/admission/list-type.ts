/**
 * List types: the uniqueness `x-kubernetes-list-type` promises — a `set` holds no item twice, a
 * `map` holds no two items with the same values of `x-kubernetes-list-map-keys` — checked as
 * apiextensions-apiserver's listtype validation checks them.
 *
 * Guarantees: each duplicate is reported once, at the index of its second occurrence, as a
 * FieldValueDuplicate whose value Go would print: `spec.tags[2]: Duplicate value: "a"`,
 * `spec.ports[1]: Duplicate value: map[string]interface {}{"name":"http"}`. A list-type map
 * holding anything but objects (or nulls) is one FieldValueInvalid instead. Items compare by
 * their JSON with sorted keys, so key order never makes two objects differ. Map values are
 * addressed as `spec.labels[key]`, as the real server addresses them here. A subtree recorded as
 * admitted under its node (admitted-subtrees.ts), or whose schema declares no set or map list,
 * holds no duplicate and is not walked.
 */
import { invalidValue, type FieldError } from '../errors.ts';
import { isPlainObject } from '../objects.ts';
import { isAdmitted } from './admitted-subtrees.ts';
import {
  childPath,
  displayPath,
  indexPath,
  keyPath,
  mapValueSchema,
  reachesWhere,
  type SchemaNode,
} from './schema-node.ts';

/** Whether a set or map list is declared at or under a node: a subtree without one is not walked. */
const reachesListType = reachesWhere(
  (node) => node['x-kubernetes-list-type'] === 'set' || node['x-kubernetes-list-type'] === 'map',
);

export function validateListTypes(value: unknown, node: SchemaNode | undefined, path = ''): FieldError[] {
  if (!node || !reachesListType(node) || isAdmitted(node, value)) return [];
  if (Array.isArray(value)) {
    const items = node.items;
    return [
      ...listErrors(value, node, path),
      ...value.flatMap((item, i) => validateListTypes(item, items, indexPath(path, i))),
    ];
  }
  if (!isPlainObject(value)) return [];
  const values = mapValueSchema(node);
  return Object.entries(value).flatMap(([key, field]) => {
    const property = node.properties?.[key];
    if (property) return validateListTypes(field, property, childPath(path, key));
    return values ? validateListTypes(field, values, keyPath(path, key)) : [];
  });
}

function listErrors(list: unknown[], node: SchemaNode, path: string): FieldError[] {
  switch (node['x-kubernetes-list-type']) {
    case 'set':
      return secondOccurrences(list).map((i) => duplicate(indexPath(path, i), list[i]));
    case 'map':
      return mapListErrors(list, node['x-kubernetes-list-map-keys'] ?? [], path);
    default:
      return [];
  }
}

function mapListErrors(list: unknown[], keyFields: string[], path: string): FieldError[] {
  const notObject = list.findIndex((item) => item !== null && !isPlainObject(item));
  if (notObject >= 0) {
    const field = displayPath(indexPath(path, notObject));
    return [invalidValue(field, list[notObject], 'must be an object for an array of list-type map')];
  }
  const keys = list.map((item) => {
    const key: Record<string, unknown> = {};
    for (const keyField of keyFields) {
      if (isPlainObject(item) && Object.hasOwn(item, keyField)) key[keyField] = item[keyField];
    }
    return key;
  });
  return secondOccurrences(keys).map((i) => duplicate(indexPath(path, i), keys[i]));
}

/** The index of every item that repeats an earlier one, once per distinct repeated value. */
function secondOccurrences(items: unknown[]): number[] {
  const seen = new Map<string, number>();
  const repeats: number[] = [];
  items.forEach((item, i) => {
    const identity = canonicalJson(item);
    const times = seen.get(identity) ?? 0;
    if (times === 1) repeats.push(i);
    seen.set(identity, times + 1);
  });
  return repeats;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function duplicate(path: string, value: unknown): FieldError {
  const printed = value === null ? '"null"' : goValue(value);
  return { reason: 'FieldValueDuplicate', field: displayPath(path), detail: `Duplicate value: ${printed}` };
}

/** A value as Go's `%#v` prints an unstructured value (`%q` for a top-level string). */
function goValue(value: unknown): string {
  if (Array.isArray(value)) return `[]interface {}{${value.map(goValue).join(', ')}}`;
  if (isPlainObject(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goValue(value[k])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  if (value === null) return 'interface {}(nil)';
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}
