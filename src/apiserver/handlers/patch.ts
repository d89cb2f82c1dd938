/**
 * PATCH of one object or its status: JSON patch, JSON merge patch, strategic merge patch (only
 * for the kinds kubectl compiles in) and server-side apply (which creates a missing object).
 *
 * Guarantees: the patch is applied to the current object and stored through the same write path
 * as PUT; a `metadata.resourceVersion` in the patch is a precondition (409 when stale); a patch
 * type the kind does not take is 415 naming the accepted ones.
 */
import { badRequest, notFound, pathNotFound, unsupportedMediaType } from '../errors.ts';
import { decodeBody, mediaType, readBody } from '../http/io.ts';
import { nowRfc3339, type KubeObject } from '../objects.ts';
import { parseApplyBody, serverSideApply } from '../patch/apply.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import { applyOwnedMergePatch } from '../patch/merge-patch.ts';
import { applyStrategicMergePatch } from '../patch/strategic-merge-patch.ts';
import { apiVersionOf, resourceRef, type ResourceType } from '../resources/resource-type.ts';
import { checkResourceVersion, createObject, readObject, updateObject } from '../writes.ts';
import type { ResourceRequest } from './context.ts';
import { respondObject } from './render.ts';
import { bodyDecoding, checkTypeMeta, withRequestNamespace, writeOptions } from './write-options.ts';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

export function patchTypes(type: ResourceType): string[] {
  return type.strategicMerge
    ? [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH]
    : [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];
}

function patched(r: ResourceRequest, current: KubeObject, contentType: string, body: Buffer): unknown {
  switch (contentType) {
    case JSON_PATCH:
      return applyJsonPatch(current, decodeBody(body, contentType), r.plane.maxObjectBytes);
    case MERGE_PATCH:
      // The decoded body is this merge's alone: its values go into the object uncopied.
      return applyOwnedMergePatch(current, decodeBody(body, contentType));
    case STRATEGIC_MERGE_PATCH:
      return applyStrategicMergePatch(current, decodeBody(body, contentType), r.type.strategicMerge!);
    default:
      throw unsupportedMediaType(patchTypes(r.type));
  }
}

function fieldManager(r: ResourceRequest): string {
  const manager = r.query.get('fieldManager');
  if (!manager) {
    throw badRequest(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
  }
  return manager;
}

export async function handlePatch(r: ResourceRequest): Promise<void> {
  if (
    r.subresource &&
    !r.type.subresources.some((s) => s.name === r.subresource && s.verbs.includes('patch'))
  ) {
    throw pathNotFound();
  }
  const contentType = mediaType(r.req.headers['content-type']);
  if (!patchTypes(r.type).includes(contentType)) {
    throw unsupportedMediaType(patchTypes(r.type));
  }
  const body = await readBody(r.req);
  const options = writeOptions(r);
  if (contentType !== APPLY_PATCH)
    options.decoding = bodyDecoding(
      body,
      contentType,
      contentType === JSON_PATCH ? 'json-patch' : 'patch',
      options.fieldValidation,
    );
  const current = readObject(r.plane, r.type, r.namespace, r.name!);
  if (contentType === APPLY_PATCH) {
    const manager = fieldManager(r);
    const applied = withRequestNamespace(r, checkTypeMeta(r, parseApplyBody(body.toString('utf8'))));
    // On the main endpoint of a kind with a status subresource, status is not the manager's to own.
    if (r.type.statusSubresource && r.subresource !== 'status') delete applied.status;
    const now = nowRfc3339(r.plane.now());
    if (!current) {
      const created = serverSideApply(
        undefined,
        { ...applied, metadata: { ...applied.metadata, name: r.name } },
        manager,
        now,
      );
      respondObject(r, 201, createObject(r.plane, r.type, created as KubeObject, options));
      return;
    }
    const merged = serverSideApply(
      current,
      applied,
      manager,
      now,
      r.subresource === 'status' ? 'status' : undefined,
    );
    store(r, current, merged as KubeObject, options);
    return;
  }
  if (!current) {
    throw notFound(resourceRef(r.type), r.name!);
  }
  if (body.length === 0) throw badRequest('the patch body is empty');
  const result = patched(r, current, contentType, body);
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    throw badRequest('the patch did not produce an object');
  }
  store(r, current, result as KubeObject, options);
}

function store(
  r: ResourceRequest,
  current: KubeObject,
  next: KubeObject,
  options: ReturnType<typeof writeOptions>,
) {
  const object = checkTypeMeta(r, next);
  if (object.apiVersion !== apiVersionOf(r.type)) throw badRequest('a patch may not change apiVersion');
  if (object.metadata.name !== current.metadata.name) {
    throw badRequest(
      `the name of the object (${object.metadata.name}) does not match the name on the URL (${r.name})`,
    );
  }
  checkResourceVersion(r.type, current, object.metadata.resourceVersion);
  respondObject(r, 200, updateObject(r.plane, r.type, withRequestNamespace(r, object), current, options));
}
