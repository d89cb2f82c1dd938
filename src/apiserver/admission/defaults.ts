/**
 * Defaulting: the `default` values of a structural schema, applied as the apiextensions-apiserver
 * applies them when it decodes a custom resource.
 *
 * Guarantees: the input is never mutated; defaults are deep copies. A property's default fills it
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
import { fieldSchema, hasDefault, type SchemaNode } from './schema-node.ts';

export function withDefaults(value: unknown, node: SchemaNode): unknown {
  return dropNonNullableNulls(applyDefaults(value, node), node);
}

function applyDefaults(value: unknown, node: SchemaNode | undefined): unknown {
  if (!node) return value;
  if (Array.isArray(value)) {
    const items = node.items;
    return value.map((item) => applyDefaults(defaultedNull(item, items), items));
  }
  if (!isPlainObject(value)) return value;
  const defaulted: Record<string, unknown> = { ...value };
  for (const [key, property] of Object.entries(node.properties ?? {})) {
    if (hasDefault(property) && !Object.hasOwn(defaulted, key)) defaulted[key] = clone(property.default);
  }
  for (const [key, field] of Object.entries(defaulted)) {
    const child = fieldSchema(node, key);
    defaulted[key] = applyDefaults(defaultedNull(field, child), child);
  }
  return defaulted;
}

/** A null at a non-nullable node with a default becomes the default. */
function defaultedNull(value: unknown, node: SchemaNode | undefined): unknown {
  return value === null && hasDefault(node) && !node.nullable ? clone(node.default) : value;
}

function dropNonNullableNulls(value: unknown, node: SchemaNode | undefined): unknown {
  if (!node) return value;
  if (Array.isArray(value)) return value.map((item) => dropNonNullableNulls(item, node.items));
  if (!isPlainObject(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const child = fieldSchema(node, key);
    if (field === null && child && !child.nullable) continue;
    kept[key] = dropNonNullableNulls(field, child);
  }
  return kept;
}
