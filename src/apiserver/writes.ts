/**
 * The write path shared by every verb: create, update (PUT, PATCH, `/status`, `/finalize`) and
 * delete, with the object-metadata rules of spec/kube-api.md §5, §10 and §11.
 *
 * Guarantees:
 * - the server owns `uid`, `creationTimestamp`, `resourceVersion`, `generation` and
 *   `deletionTimestamp`; client-sent values are ignored (or kept from the stored object);
 * - `generation` is 1 on create and grows by one when anything outside metadata (and status,
 *   where status is a subresource) changes, and once when deletion starts;
 * - a write that changes nothing stores nothing and emits no event;
 * - an object with finalizers is only marked for deletion; it goes in the write that removes its
 *   last finalizer (a MODIFIED, then a DELETED event, committed in one storage transaction);
 * - every step runs synchronously, so a write is atomic with respect to other requests.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { AdmissionRequest, Operation, RelatedWrite } from './admission/plugins.ts';
import type { BodyDecoding } from './admission/strict-decoding.ts';
import {
  alreadyExists,
  conflict,
  forbidden,
  forbiddenField,
  invalid,
  notFound,
  required,
  staleObject,
  type FieldError,
} from './errors.ts';
import {
  compactMetadata,
  deepEqual,
  isPlainObject,
  nowRfc3339,
  objectField,
  sameSpec,
  type KubeObject,
} from './objects.ts';
import { presentedWithEncoding, rememberPresentedJson } from './encoding/presented-json.ts';
import { checkEncodedSize, checkObjectSize } from './limits.ts';
import type { PlaneState } from './plane-state.ts';
import type { WriteVerb } from './write-counter.ts';
import type { Change } from './storage/revision-log.ts';
import {
  apiVersionOf,
  objectKey,
  presentedForm,
  resourceRef,
  storedForm,
  type ResourceType,
} from './resources/resource-type.ts';
import { validateBuiltinKind } from './validation/builtin-kinds.ts';
import { validateName } from './validation/names.ts';
import { checkMetadataTypes, validateObjectMeta } from './validation/object-meta.ts';

export interface WriteOptions {
  dryRun?: boolean;
  user?: string;
  /** The request's User-Agent, for the write counter. */
  userAgent?: string;
  /** The requesting identity's groups (escalation checks read them). */
  groups?: string[];
  fieldValidation?: AdmissionRequest['fieldValidation'];
  subresource?: string;
  /** Filled with admission warnings, returned to the client as `Warning` headers. */
  warnings?: string[];
  /** What decoding the request body found (duplicate fields…), reported by schema admission. */
  decoding?: BodyDecoding;
}

const NAMESPACES = { group: '', resource: 'namespaces' };
const GENERATE_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATE_NAME_ALPHABET[randomInt(GENERATE_NAME_ALPHABET.length)];
  return prefix + suffix;
}

export function readObject(
  plane: PlaneState,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
) {
  const stored = plane.log.get(type.storage, objectKey(namespace, name));
  return stored && presentedForm(type, stored);
}

export function getObject(
  plane: PlaneState,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
) {
  const object = readObject(plane, type, namespace, name);
  if (!object) throw notFound(resourceRef(type), name);
  return object;
}

/**
 * Runs a write's checks (validation, admission); when they refuse it, an object over the size
 * limit is refused for its size instead (413), as a server that measured it first would refuse
 * it. A write they accept is measured after admission anyway (its defaults count), so measuring
 * before them too would encode every write twice for the same answer.
 */
function tooLargeFirst<T>(
  type: ResourceType,
  name: string,
  object: KubeObject,
  limit: number,
  checks: () => T,
): T {
  try {
    return checks();
  } catch (err) {
    checkObjectSize(type.kind, name, object, limit);
    throw err;
  }
}

function refuseIfInvalid(type: ResourceType, name: string, errors: FieldError[]): void {
  if (errors.length > 0) throw invalid(type.kind, type.group, name, errors);
}

interface Admitted {
  object: KubeObject;
  related: RelatedWrite[];
}

function admit(
  plane: PlaneState,
  operation: Operation,
  type: ResourceType,
  object: KubeObject,
  old: KubeObject | undefined,
  options: WriteOptions,
): Admitted {
  const request: AdmissionRequest = {
    operation,
    type,
    object,
    old,
    subresource: options.subresource,
    user: options.user,
    groups: options.groups,
    dryRun: options.dryRun ?? false,
    fieldValidation: options.fieldValidation ?? 'Strict',
    decoding: options.decoding,
    warnings: options.warnings ?? [],
    related: [],
  };
  for (const plugin of plane.admission) request.object = plugin.admit(request);
  return { object: request.object, related: request.related };
}

/** The storage change of a related write: server metadata kept from the stored object, or new. */
function relatedChange(plane: PlaneState, write: RelatedWrite): Change {
  const { type, object } = write;
  const key = objectKey(object.metadata.namespace, object.metadata.name!);
  if (write.remove) return { resource: type.storage, key };
  const existing = plane.log.get(type.storage, key);
  const server = existing
    ? { uid: existing.metadata.uid, creationTimestamp: existing.metadata.creationTimestamp }
    : {
        uid: randomUUID(),
        creationTimestamp: nowRfc3339(plane.now()),
        ...(type.hasGeneration ? { generation: 1 } : {}),
      };
  const stored: KubeObject = {
    ...object,
    apiVersion: apiVersionOf(type),
    kind: type.kind,
    metadata: compactMetadata({ ...object.metadata, ...server }),
  };
  return { resource: type.storage, key, object: storedForm(type, stored) };
}

/**
 * The storage change that stores `object`, measured (413 over the plane's limit) and encoded once.
 *
 * When the type stores and presents the object as it is (no conversion; the object carries the
 * type's apiVersion and kind), the object is given now the revision the log will give it (the
 * request's own change is the first of its transaction, and nothing else writes until the
 * synchronous write is done) and encoded as presented. That encoding is its size, for the limit
 * and for the log's window, and is remembered for every watcher's line and the response
 * (presented-json.ts): a write is encoded once. Otherwise the object is measured as it is (the
 * log is given the size when the stored form is the object itself) and encoded again when
 * presented.
 */
function measuredChange(plane: PlaneState, type: ResourceType, key: string, object: KubeObject): Change {
  const name = object.metadata.name!;
  const limit = plane.maxObjectBytes;
  if (
    type.toStorage ||
    type.fromStorage ||
    object.apiVersion !== apiVersionOf(type) ||
    object.kind !== type.kind
  ) {
    const size = checkObjectSize(type.kind, name, object, limit);
    const stored = storedForm(type, object);
    return {
      resource: type.storage,
      key,
      object: stored,
      ...(stored === object ? { encodedSize: size } : {}),
    };
  }
  const revision = String(plane.log.revision + 1);
  const stored: KubeObject = { ...object, metadata: { ...object.metadata, resourceVersion: revision } };
  const json = JSON.stringify(presentedForm(type, stored));
  const size = checkEncodedSize(type.kind, name, Buffer.byteLength(json), limit);
  rememberPresentedJson(type, stored, json);
  return { resource: type.storage, key, object: stored, encodedSize: size };
}

/** Commits the request's own change with its related writes in one transaction. */
function commit(
  plane: PlaneState,
  type: ResourceType,
  change: Change,
  related: RelatedWrite[],
  by: WriteBy,
): KubeObject | undefined {
  const [result] = transactCounted(plane, [change], related, by);
  return result && presentedWithEncoding(type, result);
}

/** Who makes a write, for the plane's write counter (write-counter.ts). */
interface WriteBy {
  options: WriteOptions;
  verb: WriteVerb;
}

/**
 * One transaction of the request's own changes and its related writes; each stored change is
 * counted once it has committed.
 */
function transactCounted(
  plane: PlaneState,
  own: Change[],
  related: RelatedWrite[],
  by: WriteBy,
  after: Change[] = [],
): (KubeObject | undefined)[] {
  const results = plane.log.transact([...own, ...related.map((w) => relatedChange(plane, w)), ...after]);
  const counter = plane.writeCounter;
  if (counter) {
    const { user, userAgent, subresource = '' } = by.options;
    const count = (resource: string, sub: string, verb: WriteVerb) =>
      counter.count({ plane: plane.name, user, userAgent, resource, subresource: sub, verb });
    for (const change of own) count(change.resource, subresource, by.verb);
    for (const write of related) count(write.type.storage, '', write.remove ? 'remove' : 'related');
    for (const change of after) count(change.resource, '', 'remove');
  }
  return results;
}

function checkNamespace(
  plane: PlaneState,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
): void {
  if (!type.namespaced) return;
  const ns = plane.namespace(namespace!);
  if (!ns) throw notFound(NAMESPACES, namespace!);
  if (ns.metadata.deletionTimestamp) {
    throw forbidden(
      resourceRef(type),
      name,
      `unable to create new content in namespace ${namespace} because it is being terminated`,
      [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${namespace} is terminating`,
          field: 'metadata.namespace',
        },
      ],
    );
  }
}

/**
 * Creates `incoming` (already carrying the request's namespace); returns the stored object.
 * What `incoming` holds becomes part of the stored object: the caller must not change it later.
 */
export function createObject(
  plane: PlaneState,
  type: ResourceType,
  incoming: KubeObject,
  options: WriteOptions = {},
) {
  const meta = incoming.metadata ?? {};
  checkMetadataTypes(type.kind, type.version, meta);
  let name = meta.name;
  if (!name && meta.generateName) name = generateName(meta.generateName);
  if (!name) {
    throw invalid(type.kind, type.group, '', [required('metadata.name', 'name or generateName is required')]);
  }
  checkNamespace(plane, type, meta.namespace, name);
  const now = nowRfc3339(plane.now());
  const {
    uid: _uid,
    resourceVersion: _rv,
    deletionTimestamp: _dt,
    deletionGracePeriodSeconds: _dg,
    selfLink: _sl,
    ...clientMeta
  } = meta;
  // A shallow copy: the steps below replace what they change and never mutate nested values,
  // so the stored object may share them with `incoming` (which the caller no longer changes).
  let object: KubeObject = {
    ...incoming,
    metadata: {
      ...clientMeta,
      name,
      uid: randomUUID(),
      creationTimestamp: now,
      ...(type.hasGeneration ? { generation: 1 } : {}),
    },
  };
  if (!type.hasGeneration) delete object.metadata.generation;
  if (type.statusSubresource) delete object.status;
  if (type.prepareForCreate) object = type.prepareForCreate(object);
  const key = objectKey(meta.namespace, name);
  const built = object;
  const admitted = tooLargeFirst(type, name, built, plane.maxObjectBytes, () => {
    refuseIfInvalid(type, name, [
      ...validateName(name, type.nameRule),
      ...validateObjectMeta(built.metadata, type.nameRule),
      ...validateBuiltinKind(type, built),
      ...(type.validate?.(built, {}) ?? []),
    ]);
    // Admission before the existence check, as Kubernetes validates before it reaches storage: an
    // allocation hook may refuse a duplicate with its own cause.
    const result = admit(plane, 'CREATE', type, built, undefined, options);
    if (plane.log.get(type.storage, key)) throw alreadyExists(resourceRef(type), name);
    return result;
  });
  object = { ...admitted.object, metadata: compactMetadata(admitted.object.metadata) };
  if (options.dryRun) {
    checkObjectSize(type.kind, name, object, plane.maxObjectBytes);
    return object;
  }
  return commit(plane, type, measuredChange(plane, type, key, object), admitted.related, {
    options,
    verb: 'create',
  })!;
}

/** Builds the next object of an update from the request body and the stored object. */
function mergeForSubresource(
  type: ResourceType,
  incoming: KubeObject,
  old: KubeObject,
  subresource?: string,
) {
  switch (subresource) {
    case 'status':
      return { ...old, status: incoming.status };
    case 'finalize':
      return {
        ...old,
        spec: { ...objectField(old, 'spec'), finalizers: objectField(incoming, 'spec').finalizers ?? [] },
      };
    default:
      return type.statusSubresource ? { ...incoming, status: old.status } : incoming;
  }
}

/**
 * Stores `incoming` as the next state of `old` (both in this type's form). The caller has
 * checked the resourceVersion precondition. Returns the object as stored, or `old` for a no-op.
 */
export function updateObject(
  plane: PlaneState,
  type: ResourceType,
  incoming: KubeObject,
  old: KubeObject,
  options: WriteOptions = {},
): KubeObject {
  const name = old.metadata.name!;
  if (isPlainObject(incoming.metadata)) checkMetadataTypes(type.kind, type.version, incoming.metadata);
  // A shallow copy, not a deep one: every step below replaces what it changes (metadata here,
  // new objects from prepareForUpdate and admission) and never mutates nested values, so the
  // result may share what did not change with `old` and `incoming` (stored objects are immutable).
  let next = { ...mergeForSubresource(type, incoming, old, options.subresource) };
  next.apiVersion = old.apiVersion;
  next.kind = old.kind;
  next.metadata = {
    ...next.metadata,
    name,
    namespace: old.metadata.namespace,
    uid: old.metadata.uid,
    creationTimestamp: old.metadata.creationTimestamp,
    generation: old.metadata.generation,
    deletionTimestamp: old.metadata.deletionTimestamp,
    deletionGracePeriodSeconds: old.metadata.deletionGracePeriodSeconds,
    resourceVersion: old.metadata.resourceVersion,
  };
  if (!type.namespaced) delete next.metadata.namespace;
  for (const field of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
    if (next.metadata[field] === undefined) delete next.metadata[field];
  }
  if (old.metadata.deletionTimestamp) {
    const added = (next.metadata.finalizers ?? []).filter(
      (f) => !(old.metadata.finalizers ?? []).includes(f),
    );
    if (added.length > 0) {
      refuseIfInvalid(type, name, [
        forbiddenField(
          'metadata.finalizers',
          'no new finalizers can be added if the object is being deleted',
        ),
      ]);
    }
  }
  const merged = next;
  const admitted = tooLargeFirst(type, name, merged, plane.maxObjectBytes, () => {
    const prepared = type.prepareForUpdate ? type.prepareForUpdate(merged, old) : merged;
    refuseIfInvalid(type, name, [
      ...validateObjectMeta(prepared.metadata, type.nameRule),
      ...validateBuiltinKind(type, prepared, old),
      ...(type.validate?.(prepared, { old, subresource: options.subresource }) ?? []),
    ]);
    return admit(plane, 'UPDATE', type, prepared, old, options);
  });
  next = admitted.object;
  if (type.hasGeneration && !sameSpec(next, old, type.statusSubresource)) {
    next.metadata.generation = (old.metadata.generation ?? 0) + 1;
  }
  next = { ...next, metadata: compactMetadata(next.metadata) };
  if (deepEqual(next, old) && admitted.related.length === 0) return old;
  if (options.dryRun) {
    checkObjectSize(type.kind, name, next, plane.maxObjectBytes);
    return next;
  }
  const key = objectKey(old.metadata.namespace, name);
  const change = measuredChange(plane, type, key, next);
  if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) {
    // The update and the removal are one transaction: a crash between two would leave the
    // object deleting with nothing left to remove it (scenario 133).
    const results = transactCounted(plane, [change], admitted.related, { options, verb: 'update' }, [
      { resource: type.storage, key },
    ]);
    return presentedForm(type, results[results.length - 1]!);
  }
  return commit(plane, type, change, admitted.related, { options, verb: 'update' })!;
}

export interface DeleteOptions {
  dryRun?: boolean;
  /** The requesting identity (admission sees it); absent for the server's own deletes. */
  user?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
}

export interface DeleteResult {
  /** The deleted object (its last state), or the object now marked for deletion. */
  object: KubeObject;
  /** True when the object is still there, waiting for its finalizers. */
  pending: boolean;
}

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';

function propagationFinalizer(policy: DeleteOptions['propagationPolicy']): string | undefined {
  if (policy === 'Foreground') return FOREGROUND_FINALIZER;
  if (policy === 'Orphan') return ORPHAN_FINALIZER;
  return undefined;
}

/**
 * Deletes `old` now, or marks it for deletion when finalizers hold it. DELETE admission runs
 * first (a plugin may refuse, or add related writes, which commit with this write — the marking
 * or the removal; a removal that happens later, when the last finalizer goes, is not admitted
 * again). Foreground and Orphan
 * propagation add their finalizer (`foregroundDeletion`, `orphan`), which the garbage collector
 * clears once it has deleted (or released) the dependents; Background deletes at once and
 * leaves the dependents to the collector.
 */
export function deleteObject(
  plane: PlaneState,
  type: ResourceType,
  old: KubeObject,
  options: DeleteOptions = {},
): DeleteResult {
  const name = old.metadata.name!;
  const { uid, resourceVersion } = options.preconditions ?? {};
  if (uid && uid !== old.metadata.uid) {
    throw conflict(
      resourceRef(type),
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${old.metadata.uid}`,
    );
  }
  if (resourceVersion && resourceVersion !== old.metadata.resourceVersion) {
    throw conflict(
      resourceRef(type),
      name,
      `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
    );
  }
  const key = objectKey(old.metadata.namespace, name);
  const { related } = admit(plane, 'DELETE', type, old, old, { dryRun: options.dryRun, user: options.user });
  const extra = propagationFinalizer(options.propagationPolicy);
  const finalizers = [...(old.metadata.finalizers ?? [])];
  if (extra && !finalizers.includes(extra)) finalizers.push(extra);
  if (finalizers.length > 0) {
    const unchanged =
      old.metadata.deletionTimestamp && finalizers.length === (old.metadata.finalizers ?? []).length;
    if (unchanged || options.dryRun) return { object: old, pending: true };
    const startsNow = !old.metadata.deletionTimestamp;
    const marked: KubeObject = {
      ...old,
      metadata: {
        ...old.metadata,
        finalizers,
        deletionTimestamp: old.metadata.deletionTimestamp ?? nowRfc3339(plane.now()),
        deletionGracePeriodSeconds: 0,
        ...(type.hasGeneration && startsNow ? { generation: (old.metadata.generation ?? 0) + 1 } : {}),
      },
    };
    return {
      object: commit(
        plane,
        type,
        { resource: type.storage, key, object: storedForm(type, marked) },
        related,
        { options, verb: 'update' },
      )!,
      pending: true,
    };
  }
  if (options.dryRun) return { object: old, pending: false };
  return {
    object: commit(plane, type, { resource: type.storage, key }, related, { options, verb: 'delete' })!,
    pending: false,
  };
}

/** Drops `finalizer` from a stored object; a deleting object whose last finalizer goes is deleted. */
export function removeFinalizer(
  plane: PlaneState,
  type: ResourceType,
  object: KubeObject,
  finalizer: string,
): void {
  const finalizers = (object.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  if (finalizers.length === (object.metadata.finalizers ?? []).length) return;
  updateObject(plane, type, { ...object, metadata: { ...object.metadata, finalizers } }, object);
}

/** 409 when `expected` is set and differs from the stored object's resourceVersion. */
export function checkResourceVersion(
  type: ResourceType,
  old: KubeObject,
  expected: string | undefined,
): void {
  if (expected && expected !== old.metadata.resourceVersion)
    throw staleObject(resourceRef(type), old.metadata.name!);
}
