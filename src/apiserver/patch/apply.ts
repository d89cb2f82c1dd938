/**
 * Server-side apply (`application/apply-patch+yaml`) in its minimum viable form (spec §10): the
 * applied configuration merges into the live object, and what the manager stopped applying goes.
 *
 * Guarantees: maps merge recursively; lists and scalars in the configuration replace the live
 * value whole (every list is atomic). A field this manager applied last time (same manager, same
 * subresource) and omits now is removed, unless another Apply manager owns it or something beneath
 * it — then only what no Apply manager owns beneath it goes; a map the removal empties goes too,
 * unless the configuration sets it. Ownership is kept in `metadata.managedFields`, one `Apply`
 * entry per manager and subresource, in the real FieldsV1 shape (`{"f:spec":{"f:color":{}}}`):
 * scalars and lists are leaves `{}`, a map is owned only through its fields, so labels and
 * annotations are owned key by key; `apiVersion`, `kind` and the metadata the server sets (`name`,
 * `namespace`, `uid`, `resourceVersion`, …) are never owned. Other managers' entries are kept as
 * they are; a manager that ends up owning nothing loses its entry. A `null` in the configuration counts as an
 * omitted field, and `metadata.managedFields` in it is ignored. With subresource `status` only
 * `status` is applied and owned. Inputs are never mutated; the result shares no values with them.
 * Caveats: no conflicts and no `force` — another manager's fields are silently overwritten;
 * fields owned by Update managers do not protect a field from removal (real apply keeps them);
 * list-map keys and `x-kubernetes-map-type` are ignored; of a stored FieldsV1 only `f:` keys are
 * read. On the main resource of a kind with a status subresource, the caller drops `status` from
 * the configuration first, or the manager is recorded as owning it.
 *
 * Worked example: A applied {spec: {color: red, size: 1}} and B applied {spec: {color: red}}.
 * A now applies {spec: {size: 2}}: size becomes 2 and color stays, because B owns it. When B then
 * applies nothing under spec, color goes: A no longer owns it either.
 */
import { checkDepth } from '../limits.ts';
import { parse } from 'yaml';
import { badRequest } from '../errors.ts';
import { clone, isPlainObject } from '../objects.ts';
import { fieldOf, jsonTypeName, setField, type JsonObject } from './json-object.ts';

const yamlError = (message: string) => `error converting YAML to JSON: ${message}`;
const notAnObject = (body: unknown) =>
  `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonTypeName(body)} into Go value of type map[string]interface {}`;

/** Metadata the server sets or resets on every write, so no manager owns it (fieldmanager's StripMeta). */
const SERVER_METADATA = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'selfLink',
  'managedFields',
];

/** The body of an apply request: YAML 1.2, of which JSON is a subset, holding one object. */
export function parseApplyBody(body: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parse(body, { logLevel: 'error' });
  } catch (err) {
    throw badRequest(yamlError(err instanceof Error ? err.message : String(err)));
  }
  if (!isPlainObject(parsed)) throw badRequest(notAnObject(parsed));
  checkDepth(parsed);
  return parsed;
}

export function serverSideApply(
  live: Record<string, unknown> | undefined,
  applied: Record<string, unknown>,
  manager: string,
  now: string,
  subresource?: 'status',
): Record<string, unknown> {
  const configuration = configurationOf(applied, subresource);
  const entries = managedFieldsOf(live);
  const isMine = (entry: unknown) =>
    isPlainObject(entry) &&
    entry.manager === manager &&
    entry.operation === 'Apply' &&
    entry.subresource === subresource;
  const at = entries.findIndex(isMine);
  const previous = at === -1 ? undefined : entries[at];
  const others = entries
    .filter((entry) => isPlainObject(entry) && entry.operation === 'Apply' && !isMine(entry))
    .map((entry) => fromFieldsV1((entry as JsonObject).fieldsV1))
    .reduce<FieldSet | undefined>((all, owned) => union(all, owned), undefined);
  const owned = ownedFields(configuration);

  // Pruning before merging lets a map the configuration sets empty (`spec: {}`) survive the pruning.
  const current = clone(live) ?? {};
  const pruned = isPlainObject(previous)
    ? prune(current, fromFieldsV1(previous.fieldsV1), owned, others)
    : current;
  const result = mergeConfiguration(pruned, configuration);

  const apiVersion = typeof applied.apiVersion === 'string' ? applied.apiVersion : live?.apiVersion;
  const entry: JsonObject = {
    manager,
    operation: 'Apply',
    ...(typeof apiVersion === 'string' ? { apiVersion } : {}),
    time: now,
    fieldsType: 'FieldsV1',
    fieldsV1: toFieldsV1(owned),
    ...(subresource ? { subresource } : {}),
  };
  const kept = owned.size === 0 ? [] : [entry];
  const managedFields = at === -1 ? [...entries, ...kept] : entries.toSpliced(at, 1, ...kept);
  return withManagedFields(result, managedFields);
}

/** What the manager applies: nulls dropped, managedFields ignored, only `status` for the status subresource. */
function configurationOf(applied: JsonObject, subresource: 'status' | undefined): JsonObject {
  const configuration = withoutNulls(clone(applied));
  const metadata = fieldOf(configuration, 'metadata');
  if (isPlainObject(metadata)) delete metadata.managedFields;
  if (subresource !== 'status') return configuration;
  const status = fieldOf(configuration, 'status');
  return status === undefined ? {} : { status };
}

function withoutNulls(object: JsonObject): JsonObject {
  const kept: JsonObject = {};
  for (const [name, value] of Object.entries(object)) {
    if (value !== null) setField(kept, name, isPlainObject(value) ? withoutNulls(value) : value);
  }
  return kept;
}

function managedFieldsOf(live: JsonObject | undefined): unknown[] {
  const metadata = live && fieldOf(live, 'metadata');
  const entries = isPlainObject(metadata) ? fieldOf(metadata, 'managedFields') : undefined;
  return Array.isArray(entries) ? clone(entries) : [];
}

function withManagedFields(object: JsonObject, managedFields: unknown[]): JsonObject {
  const current = fieldOf(object, 'metadata');
  const metadata: JsonObject = { ...(isPlainObject(current) ? current : {}) };
  if (managedFields.length > 0) metadata.managedFields = managedFields;
  else delete metadata.managedFields;
  return { ...object, metadata };
}

/** Maps merge field by field; anything else in the configuration replaces the live value. */
function mergeConfiguration(live: JsonObject, configuration: JsonObject): JsonObject {
  const merged = { ...live };
  for (const [name, value] of Object.entries(configuration)) {
    const current = fieldOf(merged, name);
    const next = isPlainObject(value) && isPlainObject(current) ? mergeConfiguration(current, value) : value;
    setField(merged, name, next);
  }
  return merged;
}

/**
 * A FieldsV1 set as a tree: each owned field maps to what is owned beneath it. An empty map is a
 * leaf, a field owned whole: a scalar or a list. A map is owned only through its fields.
 */
type FieldSet = Map<string, FieldSet>;

function isLeaf(set: FieldSet | undefined): boolean {
  return set !== undefined && set.size === 0;
}

/** The fields a configuration sets: its scalars and lists; a map counts only through its fields. */
function fieldSetOf(object: JsonObject): FieldSet {
  const set: FieldSet = new Map<string, FieldSet>();
  for (const [name, value] of Object.entries(object)) {
    const owned: FieldSet = isPlainObject(value) ? fieldSetOf(value) : new Map<string, FieldSet>();
    if (!isPlainObject(value) || owned.size > 0) set.set(name, owned);
  }
  return set;
}

function ownedFields(configuration: JsonObject): FieldSet {
  const set = fieldSetOf(configuration);
  set.delete('apiVersion');
  set.delete('kind');
  const metadata = set.get('metadata');
  if (metadata) {
    for (const field of SERVER_METADATA) metadata.delete(field);
    if (metadata.size === 0) set.delete('metadata');
  }
  return set;
}

function union(a: FieldSet | undefined, b: FieldSet | undefined): FieldSet | undefined {
  if (!a || !b) return a ?? b;
  if (isLeaf(a) || isLeaf(b)) return new Map();
  const merged = new Map(a);
  for (const [name, owned] of b) merged.set(name, union(a.get(name), owned) ?? owned);
  return merged;
}

function toFieldsV1(set: FieldSet): JsonObject {
  const fields: JsonObject = {};
  for (const [name, owned] of set) fields[`f:${name}`] = toFieldsV1(owned);
  return fields;
}

function fromFieldsV1(fields: unknown): FieldSet {
  const set: FieldSet = new Map();
  if (!isPlainObject(fields)) return set;
  for (const [key, owned] of Object.entries(fields)) {
    if (key.startsWith('f:')) set.set(key.slice(2), fromFieldsV1(owned));
  }
  return set;
}

/**
 * Removes what the manager owned (`last`) but no longer applies (`next`), keeping whatever another
 * Apply manager owns (`others`). A field owned whole last time keeps only what is owned beneath it
 * now; a map that pruning empties goes too, unless someone still owns it.
 */
function prune(
  object: JsonObject,
  last: FieldSet,
  next: FieldSet | undefined,
  others: FieldSet | undefined,
): JsonObject {
  const pruned = { ...object };
  for (const [name, lastOwned] of last) {
    const nextOwned = next?.get(name);
    const othersOwned = others?.get(name);
    if (!Object.hasOwn(pruned, name) || isLeaf(nextOwned) || isLeaf(othersOwned)) continue;
    const value = pruned[name];
    if (isLeaf(lastOwned)) {
      const keep = union(nextOwned, othersOwned);
      if (keep) setField(pruned, name, restrict(value, keep));
      else delete pruned[name];
    } else if (isPlainObject(value)) {
      const inner = prune(value, lastOwned, nextOwned, othersOwned);
      const emptied = Object.keys(inner).length === 0 && Object.keys(value).length > 0;
      if (emptied && !nextOwned && !othersOwned) delete pruned[name];
      else setField(pruned, name, inner);
    }
  }
  return pruned;
}

/** Only the parts of a value that `keep` names. */
function restrict(value: unknown, keep: FieldSet): unknown {
  if (!isPlainObject(value) || isLeaf(keep)) return value;
  const kept: JsonObject = {};
  for (const [name, owned] of keep) {
    if (Object.hasOwn(value, name)) setField(kept, name, restrict(value[name], owned));
  }
  return kept;
}
