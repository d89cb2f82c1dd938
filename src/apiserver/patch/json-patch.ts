/**
 * JSON patch (RFC 6902, `application/json-patch+json`): add, remove, replace, move, copy and test,
 * each addressing the document with a JSON pointer (RFC 6901: `~1` is `/`, `~0` is `~`, and `-`
 * names the slot past an array's end).
 *
 * Guarantees: atomic — inputs are never mutated, so when an operation fails the input is as it
 * was and nothing is returned. Copy-on-write: the first change under a container copies it (and
 * each container on the way to it) once; the result shares with the target every value the patch
 * left unchanged — so a patch of `metadata` hands the stored `spec` and `status` on as the very
 * objects admission already found clean (admission/admitted-subtrees.ts) — and shares nothing with
 * the patch (its values are copied in). The whole patch is decoded before any operation runs: a patch that is not a list of
 * operations, an unknown op, or a missing or malformed `path`/`from`/`value` is 400; more than
 * 10000 operations is 413. An operation that does not apply is 422 Invalid, worded as the
 * evanphx/json-patch library the real server uses words it (the message is the patch error).
 * Given a size limit, the bytes `copy` operations add are bounded (as the Go library's
 * AccumulatedCopySizeLimit bounds them): the copy that would pass it is 413, before it is built.
 * `test` with the value `null` passes on a field that is absent (or null) in an existing object,
 * as in the Go library; under a missing parent it is refused like any other operation.
 * Caveats: negative array indices (a Go-library extension) are refused; removing a missing field
 * of an existing object reports the missing path, as the Go library does for a missing parent.
 */
import { ApiError, badRequest } from '../errors.ts';
import { encodedSize } from '../limits.ts';
import { clone, deepEqual, isPlainObject } from '../objects.ts';
import { fieldOf, jsonTypeName, setField, type JsonObject } from './json-object.ts';

/** The real server's limit (apiserver `maxJSONPatchOperations`). */
const MAX_OPERATIONS = 10000;

interface Pointer {
  text: string;
  tokens: string[];
}

type Operation =
  | { op: 'add' | 'replace' | 'test'; path: Pointer; value: unknown }
  | { op: 'remove'; path: Pointer }
  | { op: 'move' | 'copy'; path: Pointer; from: Pointer };

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

const notAPatch = (patch: unknown) =>
  `json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type jsonpatch.Patch`;
const notAnOperation = (operation: unknown) =>
  `json: cannot unmarshal ${jsonTypeName(operation)} into Go value of type jsonpatch.Operation`;
const unexpectedKind = (op: unknown) => `Unexpected kind: ${typeof op === 'string' ? op : 'unknown'}`;
const missingField = (op: string, field: string) => `${op} operation, missing ${field} field`;
const malformedPointer = (op: string, field: string, text: string) =>
  `${op} operation failed to decode ${field}: JSON pointer ${JSON.stringify(text)} must be empty or start with "/"`;
const tooManyOperations = (count: number) =>
  `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_OPERATIONS}, got ${count}`;

// Why an operation does not apply, worded as evanphx/json-patch (v5) words it.
const MISSING = 'missing value';
const invalidIndex = (token: string) => `Unable to access invalid index: ${token}: invalid index referenced`;
const failures = {
  addMissingPath: (path: string) =>
    `add operation does not apply: doc is missing path: "${path}": ${MISSING}`,
  addInvalidIndex: (path: string, token: string) =>
    `error in add for path: '${path}': ${invalidIndex(token)}`,
  removeMissingPath: (path: string) =>
    `remove operation does not apply: doc is missing path: "${path}": ${MISSING}`,
  removeInvalidIndex: (path: string, token: string) =>
    `error in remove for path: '${path}': ${invalidIndex(token)}`,
  replaceMissingPath: (path: string) =>
    `replace operation does not apply: doc is missing path: ${path}: ${MISSING}`,
  replaceMissingKey: (path: string) =>
    `replace operation does not apply: doc is missing key: ${path}: ${MISSING}`,
  missingFrom: (op: string, from: string) =>
    `${op} operation does not apply: doc is missing from path: ${from}: ${MISSING}`,
  missingDestination: (op: string, path: string) =>
    `${op} operation does not apply: doc is missing destination path: ${path}: ${MISSING}`,
  moveInvalidIndex: (path: string, token: string) =>
    `error in move for path: '${path}': ${invalidIndex(token)}`,
  copyInvalidIndex: (token: string) => `error while adding value during copy: ${invalidIndex(token)}`,
  testMissingPath: (path: string) => `test operation does not apply: is missing path: ${path}: ${MISSING}`,
  testFailed: (path: string) => `testing value ${path} failed: test operation failed`,
};

/**
 * Applies `patch` to a copy of `target`. With `maxBytes`, the bytes `copy` operations add are
 * counted as they go (a copy can double the document, which no body limit bounds), and the
 * copy that would take the document past `maxBytes` is refused with 413 before it is made.
 */
export function applyJsonPatch(target: unknown, patch: unknown, maxBytes = Infinity): unknown {
  const operations = decodePatch(patch);
  // The document lives in a holder so that the empty pointer, too, names a slot in a container.
  const holder: JsonObject = { document: target };
  const document: Document = { holder, owned: new Set([holder]) };
  // Measured only when a copy needs it: most patches have none, and the target may be large.
  const budget = { left: undefined, maxBytes, target };
  for (const operation of operations) apply(document, operation, budget);
  return holder.document;
}

/** The document being patched: its holder, and the containers this patch has copied (its own). */
interface Document {
  holder: JsonObject;
  owned: Set<object>;
}

interface CopyBudget {
  /** Bytes copies may still add; undefined until the first copy. */
  left: number | undefined;
  maxBytes: number;
  target: unknown;
}

function decodePatch(patch: unknown): Operation[] {
  if (!Array.isArray(patch)) throw badRequest(notAPatch(patch));
  if (patch.length > MAX_OPERATIONS) {
    throw new ApiError(413, 'RequestEntityTooLarge', tooManyOperations(patch.length));
  }
  return patch.map(decodeOperation);
}

function decodeOperation(operation: unknown): Operation {
  if (!isPlainObject(operation)) throw badRequest(notAnOperation(operation));
  const op = fieldOf(operation, 'op');
  if (typeof op !== 'string' || !OPS.has(op)) throw badRequest(unexpectedKind(op));
  const path = pointerField(operation, op, 'path');
  switch (op) {
    case 'remove':
      return { op, path };
    case 'move':
    case 'copy':
      return { op, path, from: pointerField(operation, op, 'from') };
    default:
      if (!Object.hasOwn(operation, 'value')) throw badRequest(missingField(op, 'value'));
      return { op: op as 'add' | 'replace' | 'test', path, value: operation.value };
  }
}

function pointerField(operation: JsonObject, op: string, field: 'path' | 'from'): Pointer {
  const text = fieldOf(operation, field);
  if (typeof text !== 'string') throw badRequest(missingField(op, field));
  if (text !== '' && !text.startsWith('/')) throw badRequest(malformedPointer(op, field, text));
  const tokens = text === '' ? [] : text.slice(1).split('/');
  return { text, tokens: tokens.map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~')) };
}

function apply(document: Document, operation: Operation, budget: CopyBudget): void {
  const path = operation.path.text;
  const at =
    operation.op === 'test' || operation.op === 'move' || operation.op === 'copy'
      ? locate(document.holder, operation.path)
      : locateToChange(document, operation.path);
  switch (operation.op) {
    case 'add':
      if (!at) throw rejected(failures.addMissingPath(path));
      if (!insert(at, clone(operation.value))) throw rejected(failures.addInvalidIndex(path, at.token));
      return;
    case 'remove':
      // The empty pointer names the whole document, which cannot be removed (the Go library agrees).
      if (!at || operation.path.tokens.length === 0) throw rejected(failures.removeMissingPath(path));
      if (valueAt(at) === undefined) {
        throw rejected(
          Array.isArray(at.container)
            ? failures.removeInvalidIndex(path, at.token)
            : failures.removeMissingPath(path),
        );
      }
      remove(at);
      return;
    case 'replace':
      if (!at) throw rejected(failures.replaceMissingPath(path));
      if (valueAt(at) === undefined) throw rejected(failures.replaceMissingKey(path));
      replace(at, clone(operation.value));
      return;
    case 'test': {
      if (!at) throw rejected(failures.testMissingPath(path));
      const value = valueAt(at);
      // As the Go library: `null` matches a field that is absent (or null) in an existing object,
      // so a writer can guard on "nobody has set this yet" without testing the resourceVersion.
      if (operation.value === null && !Array.isArray(at.container) && (value === undefined || value === null))
        return;
      if (!deepEqual(value, operation.value)) throw rejected(failures.testFailed(path));
      return;
    }
    case 'move':
      return move(document, operation.from, operation.path);
    case 'copy':
      return copy(document, operation.from, operation.path, budget);
  }
}

function move(document: Document, from: Pointer, path: Pointer): void {
  const source = locateToChange(document, from);
  const value = source && valueAt(source);
  if (!source || value === undefined) throw rejected(failures.missingFrom('move', from.text));
  remove(source);
  const destination = locateToChange(document, path);
  if (!destination) throw rejected(failures.missingDestination('move', path.text));
  if (!insert(destination, value)) throw rejected(failures.moveInvalidIndex(path.text, destination.token));
}

function copy(document: Document, from: Pointer, path: Pointer, budget: CopyBudget): void {
  const source = locate(document.holder, from);
  const value = source && valueAt(source);
  if (!source || value === undefined) throw rejected(failures.missingFrom('copy', from.text));
  const destination = locateToChange(document, path);
  if (!destination) throw rejected(failures.missingDestination('copy', path.text));
  if (budget.maxBytes !== Infinity) {
    budget.left ??= budget.maxBytes - encodedSize(budget.target);
    budget.left -= encodedSize(value);
    if (budget.left < 0) throw copyTooLarge(budget.maxBytes);
  }
  if (!insert(destination, clone(value))) throw rejected(failures.copyInvalidIndex(destination.token));
}

function copyTooLarge(maxBytes: number): ApiError {
  return new ApiError(
    413,
    'RequestEntityTooLarge',
    `Request entity too large: Unable to complete the copy, the patched object would exceed the limit of ${maxBytes} bytes`,
  );
}

function rejected(message: string): ApiError {
  return new ApiError(422, 'Invalid', message);
}

/** Where a pointer lands: the container that holds (or would hold) the value, and its token there. */
interface Location {
  container: JsonObject | unknown[];
  token: string;
}

/** The location a pointer names, or undefined when a container on the way there is missing. */
function locate(holder: JsonObject, pointer: Pointer): Location | undefined {
  let at: Location = { container: holder, token: 'document' };
  for (const token of pointer.tokens) {
    const next = valueAt(at);
    if (!isPlainObject(next) && !Array.isArray(next)) return undefined;
    at = { container: next, token };
  }
  return at;
}

/**
 * The location a pointer names, as `locate`, with every container on the way there this patch's
 * own: one still shared with the target (or the patch) is copied, once, and put in its parent's
 * place, so that what the operation changes there changes no input.
 */
function locateToChange(document: Document, pointer: Pointer): Location | undefined {
  let at: Location = { container: document.holder, token: 'document' };
  for (const token of pointer.tokens) {
    const found = valueAt(at);
    if (!isPlainObject(found) && !Array.isArray(found)) return undefined;
    let next: JsonObject | unknown[] = found;
    if (!document.owned.has(next)) {
      next = Array.isArray(next) ? [...next] : copyObject(next);
      document.owned.add(next);
      replace(at, next);
    }
    at = { container: next, token };
  }
  return at;
}

/** A shallow copy, every field written as data (a field named `__proto__` included). */
function copyObject(object: JsonObject): JsonObject {
  const copied: JsonObject = {};
  for (const key of Object.keys(object)) setField(copied, key, object[key]);
  return copied;
}

/** An array index token as RFC 6901 allows it: digits without a leading zero. */
function arrayIndex(token: string): number | undefined {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : undefined;
}

function valueAt({ container, token }: Location): unknown {
  if (!Array.isArray(container)) return fieldOf(container, token);
  const index = arrayIndex(token);
  return index === undefined ? undefined : container[index];
}

/** Adds the value at the location; false when an array index is out of range or malformed. */
function insert({ container, token }: Location, value: unknown): boolean {
  if (!Array.isArray(container)) {
    setField(container, token, value);
    return true;
  }
  const index = token === '-' ? container.length : arrayIndex(token);
  if (index === undefined || index > container.length) return false;
  container.splice(index, 0, value);
  return true;
}

/** Replaces the value at a location known to hold one. */
function replace({ container, token }: Location, value: unknown): void {
  if (Array.isArray(container)) container[Number(token)] = value;
  else setField(container, token, value);
}

/** Removes the value at a location known to hold one. */
function remove({ container, token }: Location): void {
  if (Array.isArray(container)) container.splice(Number(token), 1);
  else delete container[token];
}
