/**
 * ObjectMeta validation for every kind, as apimachinery's ValidateObjectMeta does it: labels,
 * annotations, finalizers, ownerReferences and generateName, with Kubernetes' limits and words.
 *
 * Guarantees:
 * - a metadata field of the wrong JSON type (labels that are not a map of strings, finalizers
 *   that are not a list of strings, ownerReferences that are not a list of objects) is 400
 *   BadRequest, worded as the Go decoder words it, naming the field; the object is never stored,
 *   so every client can decode what it reads back;
 * - everything else is a list of field errors (422 Invalid): label keys and values (qualified
 *   names, 63 characters), annotation keys (qualified names) and their total size (256 KiB of
 *   keys and values), finalizer names (qualified names; `orphan` and `foregroundDeletion` not
 *   together), owner references (apiVersion, kind, name and uid required; at most one
 *   controller), generateName (the kind's name rule, a trailing `-` allowed).
 */
import { ApiError, invalidValue, type FieldError } from '../errors.ts';
import { isPlainObject } from '../objects.ts';
import { labelKeyErrors, labelValueErrors } from '../selectors/label-syntax.ts';
import { validateName, type NameRule } from './names.ts';

/** apimachinery's TotalAnnotationSizeLimitB. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

const STRING_FIELDS = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'selfLink'];

function goType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** The 400 the Go decoder gives for a metadata field of the wrong type. */
function undecodable(
  kind: string,
  version: string,
  field: string,
  value: unknown,
  expected: string,
): ApiError {
  return new ApiError(
    400,
    'BadRequest',
    `${kind} in version "${version}" cannot be handled as a ${kind}: json: cannot unmarshal ${goType(value)} into Go struct field ObjectMeta.metadata.${field} of type ${expected}`,
  );
}

function isStringMap(value: unknown): value is Record<string, string> {
  return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

/** Refuses (400) metadata fields of the wrong JSON type; `null` counts as absent, as in Go. */
export function checkMetadataTypes(kind: string, version: string, metadata: Record<string, unknown>): void {
  for (const field of STRING_FIELDS) {
    const value = metadata[field];
    if (value != null && typeof value !== 'string') throw undecodable(kind, version, field, value, 'string');
  }
  for (const field of ['labels', 'annotations']) {
    const value = metadata[field];
    if (value != null && !isStringMap(value)) {
      const bad = isPlainObject(value) ? Object.values(value).find((v) => typeof v !== 'string') : value;
      throw undecodable(kind, version, field, bad, isPlainObject(value) ? 'string' : 'map[string]string');
    }
  }
  const finalizers = metadata.finalizers;
  if (finalizers != null) {
    if (!Array.isArray(finalizers)) throw undecodable(kind, version, 'finalizers', finalizers, '[]string');
    const bad: unknown = (finalizers as unknown[]).find((f) => typeof f !== 'string');
    if (bad !== undefined) throw undecodable(kind, version, 'finalizers', bad, 'string');
  }
  const owners = metadata.ownerReferences;
  if (owners != null) {
    if (!Array.isArray(owners)) {
      throw undecodable(kind, version, 'ownerReferences', owners, '[]v1.OwnerReference');
    }
    for (const owner of owners) {
      if (!isPlainObject(owner)) {
        throw undecodable(kind, version, 'ownerReferences', owner, 'v1.OwnerReference');
      }
      for (const field of ['apiVersion', 'kind', 'name', 'uid']) {
        const value = owner[field];
        if (value != null && typeof value !== 'string') {
          throw undecodable(kind, version, `ownerReferences.${field}`, value, 'string');
        }
      }
      for (const field of ['controller', 'blockOwnerDeletion']) {
        const value = owner[field];
        if (value != null && typeof value !== 'boolean') {
          throw undecodable(kind, version, `ownerReferences.${field}`, value, 'bool');
        }
      }
    }
  }
  for (const field of ['creationTimestamp', 'deletionTimestamp']) {
    const value = metadata[field];
    if (value != null && typeof value !== 'string') throw undecodable(kind, version, field, value, 'v1.Time');
  }
  const grace = metadata.deletionGracePeriodSeconds;
  if (grace != null && !Number.isInteger(grace)) {
    throw undecodable(kind, version, 'deletionGracePeriodSeconds', grace, 'int64');
  }
  const generation = metadata.generation;
  if (generation != null && !Number.isInteger(generation)) {
    throw undecodable(kind, version, 'generation', generation, 'int64');
  }
  const managed = metadata.managedFields;
  if (managed != null && (!Array.isArray(managed) || !managed.every(isPlainObject))) {
    throw undecodable(kind, version, 'managedFields', managed, '[]v1.ManagedFieldsEntry');
  }
}

function labelErrors(labels: Record<string, string>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(labels)) {
    const keyProblems = labelKeyErrors(key);
    if (keyProblems.length > 0) errors.push(invalidValue('metadata.labels', key, keyProblems.join('; ')));
    const valueProblems = labelValueErrors(value);
    if (valueProblems.length > 0) {
      errors.push(invalidValue(`metadata.labels`, value, valueProblems.join('; ')));
    }
  }
  return errors;
}

function annotationErrors(annotations: Record<string, string>): FieldError[] {
  const errors: FieldError[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) {
    const problems = labelKeyErrors(key.toLowerCase());
    if (problems.length > 0) errors.push(invalidValue('metadata.annotations', key, problems.join('; ')));
    total += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) {
    errors.push({
      reason: 'FieldValueTooLong',
      field: 'metadata.annotations',
      detail: `Too long: may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`,
    });
  }
  return errors;
}

function finalizerErrors(finalizers: string[]): FieldError[] {
  const errors: FieldError[] = [];
  finalizers.forEach((finalizer, i) => {
    const problems = labelKeyErrors(finalizer);
    if (problems.length > 0)
      errors.push(invalidValue(`metadata.finalizers[${i}]`, finalizer, problems.join('; ')));
  });
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errors.push(
      invalidValue(
        'metadata.finalizers',
        'foregroundDeletion',
        'finalizer orphan and foregroundDeletion cannot be both set',
      ),
    );
  }
  return errors;
}

function ownerReferenceErrors(owners: Record<string, unknown>[]): FieldError[] {
  const errors: FieldError[] = [];
  let controllers = 0;
  owners.forEach((owner, i) => {
    const at = `metadata.ownerReferences[${i}]`;
    if (!owner.apiVersion)
      errors.push(invalidValue(`${at}.apiVersion`, owner.apiVersion ?? '', 'version must not be empty'));
    if (!owner.kind) errors.push(invalidValue(`${at}.kind`, owner.kind ?? '', 'kind must not be empty'));
    if (!owner.name) errors.push(invalidValue(`${at}.name`, owner.name ?? '', 'name must not be empty'));
    if (!owner.uid) errors.push(invalidValue(`${at}.uid`, owner.uid ?? '', 'uid must not be empty'));
    if (owner.controller === true) controllers += 1;
  });
  if (controllers > 1) {
    errors.push(
      invalidValue('metadata.ownerReferences', owners, 'Only one reference can have Controller set to true'),
    );
  }
  return errors;
}

/** The field errors of `metadata` (whose types `checkMetadataTypes` has checked). */
export function validateObjectMeta(metadata: Record<string, unknown>, nameRule: NameRule): FieldError[] {
  const errors: FieldError[] = [];
  const generateName = metadata.generateName as string | undefined;
  if (generateName) {
    const masked = generateName.endsWith('-') ? `${generateName.slice(0, -1)}a` : generateName;
    for (const e of validateName(masked, nameRule, 'metadata.generateName')) {
      errors.push({ ...e, detail: e.detail.replace(JSON.stringify(masked), JSON.stringify(generateName)) });
    }
  }
  if (metadata.labels) errors.push(...labelErrors(metadata.labels as Record<string, string>));
  if (metadata.annotations) errors.push(...annotationErrors(metadata.annotations as Record<string, string>));
  if (metadata.finalizers) errors.push(...finalizerErrors(metadata.finalizers as string[]));
  if (metadata.ownerReferences) {
    errors.push(...ownerReferenceErrors(metadata.ownerReferences as Record<string, unknown>[]));
  }
  return errors;
}
