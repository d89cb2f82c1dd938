/**
 * PUT of one object, or of its `status` or `finalize` subresource.
 *
 * Guarantees: CRs and CRDs require `metadata.resourceVersion` (422 without it); a stale one is
 * 409; the body's name must match the URL (400); a PUT never creates.
 */
import { badRequest, invalid, pathNotFound } from '../errors.ts';
import { decodeObjectBody, readBody } from '../http/io.ts';
import { checkResourceVersion, getObject, updateObject } from '../writes.ts';
import type { ResourceRequest } from './context.ts';
import { respondObject } from './render.ts';
import { bodyDecoding, checkTypeMeta, withRequestNamespace, writeOptions } from './write-options.ts';

export async function handleUpdate(r: ResourceRequest): Promise<void> {
  if (
    r.subresource &&
    !r.type.subresources.some((s) => s.name === r.subresource && s.verbs.includes('update'))
  ) {
    throw pathNotFound();
  }
  const raw = await readBody(r.req);
  const body = decodeObjectBody(raw, r.req.headers['content-type']);
  const options = writeOptions(r);
  options.decoding = bodyDecoding(raw, r.req.headers['content-type'], 'object', options.fieldValidation);
  const object = withRequestNamespace(r, checkTypeMeta(r, body));
  const bodyName = object.metadata.name;
  if (bodyName !== undefined && bodyName !== r.name) {
    throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${r.name})`);
  }
  const old = getObject(r.plane, r.type, r.namespace, r.name!);
  const resourceVersion = object.metadata.resourceVersion;
  if (!resourceVersion && r.type.requireResourceVersionOnUpdate) {
    throw invalid(r.type.kind, r.type.group, r.name!, [
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.resourceVersion',
        detail: 'Invalid value: 0x0: must be specified for an update',
      },
    ]);
  }
  checkResourceVersion(r.type, old, resourceVersion);
  respondObject(r, 200, updateObject(r.plane, r.type, object, old, options));
}
