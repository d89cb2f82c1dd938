/**
 * The query parameters every write accepts — `dryRun`, `fieldValidation`, `fieldManager` — and
 * the checks every request body gets before it is written: its apiVersion, kind, name and
 * namespace must agree with the URL.
 */
import { duplicateProblem, type BodyDecoding } from '../admission/strict-decoding.ts';
import { badRequest } from '../errors.ts';
import { duplicateFields } from '../http/duplicate-fields.ts';
import { mediaType } from '../http/io.ts';
import { isPlainObject, type KubeObject } from '../objects.ts';
import { apiVersionOf } from '../resources/resource-type.ts';
import type { WriteOptions } from '../writes.ts';
import type { ResourceRequest } from './context.ts';

const FIELD_VALIDATION = new Set(['Strict', 'Warn', 'Ignore']);

export function writeOptions(r: ResourceRequest): WriteOptions {
  const dryRun = r.query.getAll('dryRun');
  for (const value of dryRun) {
    if (value !== 'All') throw badRequest(`Invalid dry run option: ${value}: valid values are: All`);
  }
  const fieldValidation = r.query.get('fieldValidation') ?? 'Warn';
  if (!FIELD_VALIDATION.has(fieldValidation)) {
    throw badRequest(
      `fieldValidation: Unsupported value: "${fieldValidation}": supported values: "Ignore", "Strict", "Warn"`,
    );
  }
  const fieldManager = r.query.get('fieldManager') ?? '';
  if (fieldManager.length > 128) {
    throw badRequest(`fieldManager: Too long: may not be more than 128 bytes`);
  }
  return {
    dryRun: dryRun.length > 0,
    user: r.user,
    userAgent: r.req.headers['user-agent'],
    groups: r.groups,
    fieldValidation: fieldValidation as WriteOptions['fieldValidation'],
    subresource: r.subresource,
    warnings: r.warnings,
  };
}

/** Refuses a body whose apiVersion or kind is not this resource's; fills them in when absent. */
export function checkTypeMeta(r: ResourceRequest, body: Record<string, unknown>): KubeObject {
  const expectedVersion = apiVersionOf(r.type);
  if (body.apiVersion !== undefined && body.apiVersion !== expectedVersion) {
    throw badRequest(
      `the API version in the data (${JSON.stringify(body.apiVersion)}) does not match the expected API version (${expectedVersion})`,
    );
  }
  if (body.kind !== undefined && body.kind !== r.type.kind) {
    throw badRequest(
      `the kind in the data (${JSON.stringify(body.kind)}) does not match the expected kind (${r.type.kind})`,
    );
  }
  const metadata = body.metadata ?? {};
  if (typeof metadata !== 'object' || Array.isArray(metadata)) throw badRequest('metadata must be an object');
  return { ...body, apiVersion: expectedVersion, kind: r.type.kind, metadata } as KubeObject;
}

/** Settles the namespace of a body against the URL: 400 on a mismatch. */
export function withRequestNamespace(r: ResourceRequest, object: KubeObject): KubeObject {
  if (!r.type.namespaced) {
    const { namespace: _ignored, ...metadata } = object.metadata;
    return { ...object, metadata };
  }
  const namespace = object.metadata.namespace;
  if (namespace && namespace !== r.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  return { ...object, metadata: { ...object.metadata, namespace: r.namespace } };
}

/**
 * What decoding a JSON body finds before the object is built: fields given twice, and for a JSON
 * patch the operations' own unknown or repeated fields. Schema admission reports them with the
 * object's unknown fields, as `fieldValidation` asks (admission/strict-decoding.ts); under
 * `Ignore`, which reports nothing, the body is not searched.
 */
export function bodyDecoding(
  body: Buffer,
  contentType: string | undefined,
  kind: 'object' | 'patch' | 'json-patch',
  fieldValidation: WriteOptions['fieldValidation'],
): BodyDecoding | undefined {
  if (fieldValidation === 'Ignore') return undefined;
  const type = mediaType(contentType);
  if (type !== '' && !type.endsWith('json')) return undefined;
  const text = body.toString('utf8');
  const duplicates = duplicateFields(text);
  if (kind !== 'json-patch') {
    return { problems: duplicates.map(duplicateProblem), duplicates, patch: kind === 'patch' };
  }
  const problems: string[] = [];
  let operations: unknown;
  try {
    operations = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (Array.isArray(operations)) {
    (operations as unknown[]).forEach((operation, i) => {
      if (!isPlainObject(operation)) return;
      for (const field of Object.keys(operation)) {
        if (!JSON_PATCH_FIELDS.has(field)) problems.push(`json patch unknown field "[${i}].${field}"`);
      }
    });
  }
  for (const path of duplicates) problems.push(`json patch duplicate field ${JSON.stringify(path)}`);
  return { problems, duplicates: [], patch: true };
}

const JSON_PATCH_FIELDS = new Set(['op', 'path', 'value', 'from']);
