/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) for the built-in kinds kubectl
 * compiles in, driven by a small table of patch metadata instead of Go struct tags.
 *
 * Guarantees: JSON merge patch semantics — maps merge recursively, `null` deletes, lists and
 * scalars replace — except where the strategy says otherwise: a list with a merge key merges
 * element by element on that key, and a set list unions its primitives. The directives are
 * honoured and never reach the result: `$patch: replace | merge | delete` in a map and as a list
 * element (in a keyed list, `{$patch: delete, <key>: v}` removes that element and
 * `{$patch: replace}` keeps only the patch's elements), `$retainKeys`,
 * `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`. A merged list is ordered as
 * apimachinery orders it (see `ordered`), so without `$setElementOrder` elements the live list
 * lacked come first. A malformed directive (an unknown `$patch` value, a keyed element without its
 * key, a directive list that is not a list) is 400. Inputs are never mutated and the result shares
 * no values with them.
 * Caveats: `$patch: delete` in a map removes the field (apimachinery leaves `{}`); `$patch: merge`
 * is accepted anywhere (apimachinery refuses it in lists); `$retainKeys` applies wherever it is
 * sent, not only to fields whose schema declares it; the consistency check between a list and its
 * `$setElementOrder` is not made; lists of lists are replaced, never merged.
 */
import { badRequest } from '../errors.ts';
import { clone, isPlainObject } from '../objects.ts';
import { fieldOf, jsonTypeName, setField, type JsonObject } from './json-object.ts';

/** Patch metadata by dotted field path (`metadata.ownerReferences`); list elements add no segment. */
export interface PatchStrategy {
  /** Lists of maps merged element by element: path → the field that identifies an element. */
  mergeKeys: Record<string, string>;
  /** Lists of primitives merged as sets. */
  setLists: ReadonlySet<string>;
}

/** What every built-in kind shares: the patch metadata of ObjectMeta. */
export const objectMetaStrategy: PatchStrategy = {
  mergeKeys: { 'metadata.ownerReferences': 'uid' },
  setLists: new Set(['metadata.finalizers']),
};

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

const notAMap = (patch: unknown) =>
  `json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type map[string]interface {}`;
const unknownPatchType = (directive: unknown, map: JsonObject) =>
  `unknown patch type: ${String(directive)} in map: ${JSON.stringify(map)}`;
const noMergeKey = (element: unknown, key: string) =>
  `map: ${JSON.stringify(element)} does not contain declared merge key: ${key}`;
const noMergeKeyDeclared = (path: string) => `cannot merge lists without merge key for ${path}`;
const BAD_RETAIN_KEYS = 'invalid patch format of retainKeys';
const BAD_PRIMITIVE_LIST = 'invalid patch format of primitive list';
const BAD_SET_ELEMENT_ORDER = 'invalid patch format of setElementOrder list';

export function applyStrategicMergePatch(target: unknown, patch: unknown, strategy: PatchStrategy): unknown {
  if (!isPlainObject(patch)) throw badRequest(notAMap(patch));
  const live = isPlainObject(target) ? clone(target) : {};
  return mergeValue(live, clone(patch), '', strategy) ?? {};
}

/** The patched value of one field; undefined when the patch deletes it. */
function mergeValue(live: unknown, patch: unknown, path: string, strategy: PatchStrategy): unknown {
  if (Array.isArray(patch)) return mergeList(Array.isArray(live) ? live : [], patch, path, strategy);
  if (!isPlainObject(patch)) return patch;
  const { [PATCH]: directive, ...fields } = patch;
  switch (directive) {
    case undefined:
    case 'merge':
      return mergeMap(isPlainObject(live) ? live : {}, fields, path, strategy);
    case 'replace':
      return mergeMap({}, fields, path, strategy);
    case 'delete':
      return undefined;
    default:
      throw badRequest(unknownPatchType(directive, patch));
  }
}

/** Merges a map patch that carries no `$patch` of its own. */
function mergeMap(live: JsonObject, patch: JsonObject, path: string, strategy: PatchStrategy): JsonObject {
  const merged = retainedFields(live, patch);
  for (const [name, value] of Object.entries(patch)) {
    if (isDirective(name)) continue;
    const field =
      value === null ? undefined : mergeValue(fieldOf(merged, name), value, join(path, name), strategy);
    if (field === undefined) delete merged[name];
    else setField(merged, name, field);
  }
  for (const [name, order] of directiveLists(patch, SET_ELEMENT_ORDER, BAD_SET_ELEMENT_ORDER)) {
    const list = fieldOf(merged, name);
    if (!Array.isArray(list)) continue;
    const before = fieldOf(live, name);
    const identity = identityIn(join(path, name), strategy);
    setField(merged, name, ordered(list, order, Array.isArray(before) ? before : [], identity));
  }
  for (const [name, doomed] of directiveLists(patch, DELETE_FROM_PRIMITIVE_LIST, BAD_PRIMITIVE_LIST)) {
    const list = fieldOf(merged, name);
    if (!Array.isArray(list)) continue;
    const gone = new Set(doomed.map(primitiveIdentity));
    const kept = list.filter((item) => !gone.has(primitiveIdentity(item)));
    setField(merged, name, kept);
  }
  return merged;
}

function isDirective(name: string): boolean {
  return (
    name === RETAIN_KEYS || name.startsWith(DELETE_FROM_PRIMITIVE_LIST) || name.startsWith(SET_ELEMENT_ORDER)
  );
}

/** A copy of the live map; with `$retainKeys`, only the fields it lists (all the patch sets must be among them). */
function retainedFields(live: JsonObject, patch: JsonObject): JsonObject {
  const retainKeys = fieldOf(patch, RETAIN_KEYS);
  if (retainKeys === undefined) return { ...live };
  if (!Array.isArray(retainKeys) || !retainKeys.every((key) => typeof key === 'string')) {
    throw badRequest(BAD_RETAIN_KEYS);
  }
  const retained = new Set<string>(retainKeys);
  for (const [name, value] of Object.entries(patch)) {
    if (value !== null && !isDirective(name) && !retained.has(name)) throw badRequest(BAD_RETAIN_KEYS);
  }
  return Object.fromEntries(Object.entries(live).filter(([name]) => retained.has(name)));
}

/** The `<field>` → list pairs of every `<prefix><field>` directive in the patch. */
function directiveLists(patch: JsonObject, prefix: string, malformed: string): [string, unknown[]][] {
  const lists: [string, unknown[]][] = [];
  for (const [name, value] of Object.entries(patch)) {
    if (!name.startsWith(prefix)) continue;
    if (!Array.isArray(value)) throw badRequest(malformed);
    lists.push([name.slice(prefix.length), value]);
  }
  return lists;
}

function mergeList(live: unknown[], patch: unknown[], path: string, strategy: PatchStrategy): unknown[] {
  const mergeKey = mergeKeyOf(path, strategy);
  const { elements, replace, deleted } = listDirectives(patch, path, mergeKey);
  if (replace || (mergeKey === undefined && !strategy.setLists.has(path))) {
    return elements.map((element) => mergeValue(undefined, element, path, strategy));
  }
  if (mergeKey === undefined) return ordered(union(live, elements), elements, live, primitiveIdentity);
  const identity = keyIdentity(mergeKey);
  const merged = live.filter((item) => {
    const id = identity(item);
    return id === undefined || !deleted.has(id);
  });
  for (const element of elements) {
    if (!isPlainObject(element) || !Object.hasOwn(element, mergeKey)) {
      throw badRequest(noMergeKey(element, mergeKey));
    }
    const at = merged.findIndex((item) => identity(item) === identity(element));
    const before = at === -1 ? {} : merged[at];
    const next = mergeMap(isPlainObject(before) ? before : {}, element, path, strategy);
    if (at === -1) merged.push(next);
    else merged[at] = next;
  }
  return ordered(merged, elements, live, identity);
}

/**
 * Splits a list patch into its plain elements and its `$patch` elements: `replace` (keep only
 * the patch's elements), `merge` (the default; the element's other fields merge as usual) and
 * `delete` (remove the live element with the same merge key).
 */
function listDirectives(patch: unknown[], path: string, mergeKey: string | undefined) {
  const elements: unknown[] = [];
  const deleted = new Set<string>();
  let replace = false;
  for (const element of patch) {
    if (!isPlainObject(element) || !Object.hasOwn(element, PATCH)) {
      elements.push(element);
      continue;
    }
    const { [PATCH]: directive, ...fields } = element;
    switch (directive) {
      case 'replace':
        replace = true;
        break;
      case 'merge':
        if (Object.keys(fields).length > 0) elements.push(fields);
        break;
      case 'delete':
        if (mergeKey === undefined) throw badRequest(noMergeKeyDeclared(path));
        if (!Object.hasOwn(fields, mergeKey)) throw badRequest(noMergeKey(element, mergeKey));
        deleted.add(primitiveIdentity(fields[mergeKey]));
        break;
      default:
        throw badRequest(unknownPatchType(directive, element));
    }
  }
  return { elements, replace, deleted };
}

function union(live: unknown[], elements: unknown[]): unknown[] {
  const seen = new Set<string>();
  return [...live, ...elements].filter((item) => {
    const identity = primitiveIdentity(item);
    if (seen.has(identity)) return false;
    seen.add(identity);
    return true;
  });
}

/** What makes two list elements the same element; undefined when an element cannot be matched. */
type Identity = (item: unknown) => string | undefined;

const primitiveIdentity = (item: unknown): string => JSON.stringify(item);

function keyIdentity(mergeKey: string): Identity {
  return (item) =>
    isPlainObject(item) && Object.hasOwn(item, mergeKey) ? JSON.stringify(item[mergeKey]) : undefined;
}

function mergeKeyOf(path: string, strategy: PatchStrategy): string | undefined {
  const mergeKey = fieldOf(strategy.mergeKeys, path);
  return typeof mergeKey === 'string' ? mergeKey : undefined;
}

function identityIn(path: string, strategy: PatchStrategy): Identity {
  const mergeKey = mergeKeyOf(path, strategy);
  return mergeKey === undefined ? primitiveIdentity : keyIdentity(mergeKey);
}

/**
 * apimachinery's order for a merged list (`normalizeElementOrder`): the elements named in
 * `patchOrder` sorted by it, the others in live order, then the two interleaved — a live-only
 * element goes before a patch element only when both are in the live list and it came first there.
 *
 * Worked example: live [1, 2, 9, 3, 4], order [2, 1, 4, 3] → [2, 1, 9, 4, 3]: 9 stays after 1
 * and 2 but before 4, as in the live list. Live [a, b] with a new element c → [c, a, b]: c is not
 * in the live list, so nothing places a or b before it.
 */
function ordered(
  merged: unknown[],
  patchOrder: unknown[],
  liveOrder: unknown[],
  identity: Identity,
): unknown[] {
  const patchRanks = ranks(patchOrder, identity);
  const liveRanks = ranks(liveOrder, identity);
  const rank = (table: Map<string, number>, item: unknown) => {
    const id = identity(item);
    return id === undefined ? undefined : table.get(id);
  };
  const byRank = (table: Map<string, number>) => (a: unknown, b: unknown) => {
    const [first, second] = [rank(table, a) ?? Infinity, rank(table, b) ?? Infinity];
    return first === second ? 0 : first - second;
  };
  const fromPatch = merged.filter((item) => rank(patchRanks, item) !== undefined).sort(byRank(patchRanks));
  const liveOnly = merged.filter((item) => rank(patchRanks, item) === undefined).sort(byRank(liveRanks));
  const result: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < liveOnly.length || j < fromPatch.length) {
    const left = rank(liveRanks, liveOnly[i]);
    const right = rank(liveRanks, fromPatch[j]);
    const liveFirst = j >= fromPatch.length || (left !== undefined && right !== undefined && left < right);
    result.push(i < liveOnly.length && liveFirst ? liveOnly[i++] : fromPatch[j++]);
  }
  return result;
}

/** Each identity's first position in a list. */
function ranks(list: unknown[], identity: Identity): Map<string, number> {
  const table = new Map<string, number>();
  list.forEach((item, index) => {
    const id = identity(item);
    if (id !== undefined && !table.has(id)) table.set(id, index);
  });
  return table;
}

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}
