/**
 * The query parameters every write accepts — `dryRun`, `fieldValidation`, `fieldManager` — and
 * the checks every request body gets before it is written: its apiVersion, kind, name and
 * namespace must agree with the URL.
 */
import { badRequest } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
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
