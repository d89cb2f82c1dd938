/**
 * Defaulting: the `default` values of a structural schema, applied as the apiextensions-apiserver
 * applies them when it decodes a custom resource.
 *
 * Guarantees: the input is never mutated; defaults are deep copies. An object or list to which
 * nothing applies is returned itself (so a result shares what did not change with the input), and
 * a subtree recorded as admitted under its node (admitted-subtrees.ts), or whose schema sets no
 * default anywhere, is returned without walking it. A property's default fills it
 * when the property is missing from an object that is present — so a nested object's defaults
 * apply only once its parent exists — and recursively inside defaults, list items and map values.
 * A null gets the default too unless the node is `nullable: true`; afterwards a null left at a
 * non-nullable field without a default is dropped, as `PruneNonNullableNullsWithoutDefaults` does.
 * Null list items are never dropped; validation refuses them.
 *
 * Example: with `spec.mtu` defaulting to 1460 and `status` defaulting to
 * `{conditions: [{type: Ready, status: Unknown}]}`, `{spec: {}}` becomes
 * `{spec: {mtu: 1460}, status: {conditions: [{type: Ready, status: Unknown}]}}`, while `{}`
 * gets only the status: `spec` is absent, so its fields are not defaulted.
 */
import { clone, isPlainObject } from '../objects.ts';
import { isAdmitted } from './admitted-subtrees.ts';
import { fieldSchema, hasDefault, reachesWhere, type SchemaNode } from './schema-node.ts';

export function withDefaults(value: unknown, node: SchemaNode): unknown {
  return dropNonNullableNulls(applyDefaults(value, node), node);
}

/** Whether a default is set at or under a node: a subtree without one is not walked. */
const reachesDefault = reachesWhere(hasDefault);

/** Each node's properties that set a default, found once per node (a schema node is never changed). */
const propertiesWithDefaults = new WeakMap<SchemaNode, [string, SchemaNode][]>();

function defaultingProperties(node: SchemaNode): [string, SchemaNode][] {
  let found = propertiesWithDefaults.get(node);
  if (!found) {
    found = Object.entries(node.properties ?? {}).filter(([, property]) => hasDefault(property));
    propertiesWithDefaults.set(node, found);
  }
  return found;
}

// Loops below index arrays and walk keys with `for…in` rather than building entry lists: this
// runs on every write, and those lists were a few percent of what the server's thread allocated
// in a burst (bench/README.md, session 27).
function applyDefaults(value: unknown, node: SchemaNode | undefined): unknown {
  if (!node || !reachesDefault(node) || isAdmitted(node, value)) return value;
  if (Array.isArray(value)) {
    const items = node.items;
    let defaulted: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = applyDefaults(defaultedNull(item, items), items);
      if (!defaulted && next !== item) defaulted = value.slice(0, i);
      defaulted?.push(next);
    }
    return defaulted ?? value;
  }
  if (!isPlainObject(value)) return value;
  let defaulted: Record<string, unknown> | undefined;
  const properties = defaultingProperties(node);
  for (let i = 0; i < properties.length; i++) {
    const [key, property] = properties[i];
    if (!Object.hasOwn(value, key)) {
      defaulted ??= { ...value };
      defaulted[key] = clone(property.default);
    }
  }
  const fields = defaulted ?? value;
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    const field = fields[key];
    const child = fieldSchema(node, key);
    const next = applyDefaults(defaultedNull(field, child), child);
    if (next !== field) {
      defaulted ??= { ...value };
      defaulted[key] = next;
    }
  }
  return defaulted ?? value;
}

/** A null at a non-nullable node with a default becomes the default. */
function defaultedNull(value: unknown, node: SchemaNode | undefined): unknown {
  return value === null && hasDefault(node) && !node.nullable ? clone(node.default) : value;
}

/**
 * `value` without the nulls at non-nullable fields; what holds none is returned itself, and a
 * copy is made only from the first field or item that changes (most writes carry no such null).
 */
function dropNonNullableNulls(value: unknown, node: SchemaNode | undefined): unknown {
  if (!node || isAdmitted(node, value)) return value;
  if (Array.isArray(value)) {
    let kept: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = dropNonNullableNulls(item, node.items);
      if (kept) kept.push(next);
      else if (next !== item) {
        kept = value.slice(0, i);
        kept.push(next);
      }
    }
    return kept ?? value;
  }
  if (!isPlainObject(value)) return value;
  // A field named `__proto__` takes the copying path below, which drops it when it is not an
  // object (assigning it sets the copy's prototype), as this function always has.
  if (Object.hasOwn(value, '__proto__')) return copyWithoutNulls(value, node);
  let kept: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const field = value[key];
    const child = fieldSchema(node, key);
    const dropped = field === null && child !== undefined && !child.nullable;
    const next = dropped ? undefined : dropNonNullableNulls(field, child);
    if (!kept && (dropped || next !== field)) {
      kept = {};
      for (const earlier in value) {
        if (earlier === key) break;
        if (Object.hasOwn(value, earlier)) kept[earlier] = value[earlier];
      }
    }
    if (kept && !dropped) kept[key] = next;
  }
  return kept ?? value;
}

function copyWithoutNulls(value: Record<string, unknown>, node: SchemaNode): unknown {
  const kept: Record<string, unknown> = {};
  let same = true;
  for (const [key, field] of Object.entries(value)) {
    const child = fieldSchema(node, key);
    if (field === null && child && !child.nullable) {
      same = false;
      continue;
    }
    kept[key] = dropNonNullableNulls(field, child);
    if (kept[key] !== field) same = false;
  }
  return same ? value : kept;
}
