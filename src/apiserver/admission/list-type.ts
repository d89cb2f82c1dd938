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
import { deepEqual, isPlainObject } from '../objects.ts';
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

export function validateListTypes(value: unknown, node: SchemaNode | undefined): FieldError[] {
  const errors: FieldError[] = [];
  collectListErrors(value, node, '', errors);
  return errors;
}

/**
 * Adds the list-type errors of `value` at `path` to `errors`. It walks only what reaches a set or
 * map list and builds a child's path only to walk it: this runs on every write, and the arrays of
 * a version returning lists were about 4 % of what the server's thread allocated in a burst
 * (bench/README.md, session 27).
 */
function collectListErrors(
  value: unknown,
  node: SchemaNode | undefined,
  path: string,
  errors: FieldError[],
): void {
  if (!node || !reachesListType(node) || isAdmitted(node, value)) return;
  if (Array.isArray(value)) {
    listErrors(value, node, path, errors);
    const items = node.items;
    if (items && reachesListType(items))
      for (let i = 0; i < value.length; i++) collectListErrors(value[i], items, indexPath(path, i), errors);
    return;
  }
  if (!isPlainObject(value)) return;
  const values = mapValueSchema(node);
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const property = node.properties?.[key];
    if (property) {
      if (reachesListType(property)) collectListErrors(value[key], property, childPath(path, key), errors);
    } else if (values && reachesListType(values))
      collectListErrors(value[key], values, keyPath(path, key), errors);
  }
}

function listErrors(list: unknown[], node: SchemaNode, path: string, errors: FieldError[]): void {
  switch (node['x-kubernetes-list-type']) {
    case 'set':
      for (const i of secondOccurrences(list, deepEqual)) errors.push(duplicate(indexPath(path, i), list[i]));
      return;
    case 'map':
      return mapListErrors(list, node['x-kubernetes-list-map-keys'] ?? [], path, errors);
  }
}

function mapListErrors(list: unknown[], keyFields: string[], path: string, errors: FieldError[]): void {
  const notObject = list.findIndex((item) => item !== null && !isPlainObject(item));
  if (notObject >= 0) {
    const field = displayPath(indexPath(path, notObject));
    errors.push(invalidValue(field, list[notObject], 'must be an object for an array of list-type map'));
    return;
  }
  const sameKeys = (a: unknown, b: unknown) =>
    keyFields.every((field) => deepEqual(keyOf(a, field), keyOf(b, field)));
  const keyObject = (item: unknown) => {
    const key: Record<string, unknown> = {};
    for (const field of keyFields) {
      const value = keyOf(item, field);
      if (value !== ABSENT) key[field] = value;
    }
    return key;
  };
  for (const i of secondOccurrences(list, sameKeys, keyObject))
    errors.push(duplicate(indexPath(path, i), keyObject(list[i])));
}

/** An item's value of a map key field, or ABSENT (an item that is null, or lacks the field). */
const ABSENT = Symbol('absent');

function keyOf(item: unknown, field: string): unknown {
  return isPlainObject(item) && Object.hasOwn(item, field) ? item[field] : ABSENT;
}

/** Lists up to this long are searched pair by pair; longer ones by each item's canonical JSON. */
const PAIRWISE_UP_TO = 16;

/**
 * The index of every item that repeats an earlier one, once per distinct repeated value: a short
 * list compared pair by pair with `same`, a longer one by the canonical JSON of each item's
 * `identity`. The two must agree: for JSON values deepEqual and equal canonical JSON do (key
 * order aside, which canonical JSON sorts away).
 */
function secondOccurrences(
  items: unknown[],
  same: (a: unknown, b: unknown) => boolean,
  identity: (item: unknown) => unknown = (item) => item,
): number[] {
  const repeats: number[] = [];
  if (items.length <= PAIRWISE_UP_TO) {
    for (let i = 1; i < items.length; i++) {
      let earlier = 0;
      for (let j = 0; j < i && earlier < 2; j++) if (same(items[j], items[i])) earlier++;
      if (earlier === 1) repeats.push(i);
    }
    return repeats;
  }
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const json = canonicalJson(identity(item));
    const times = seen.get(json) ?? 0;
    if (times === 1) repeats.push(i);
    seen.set(json, times + 1);
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
