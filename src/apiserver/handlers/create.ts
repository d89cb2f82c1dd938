/** POST to a collection: creates one object (201, also for a dry run). */
import { badRequest, methodNotAllowed } from '../errors.ts';
import { decodeObjectBody, readBody } from '../http/io.ts';
import { createObject } from '../writes.ts';
import type { ResourceRequest } from './context.ts';
import { respondObject } from './render.ts';
import { bodyDecoding, checkTypeMeta, withRequestNamespace, writeOptions } from './write-options.ts';

export async function handleCreate(r: ResourceRequest): Promise<void> {
  if (r.subresource) throw methodNotAllowed();
  if (r.type.namespaced && r.namespace === undefined) {
    throw badRequest('the namespace of the object must be given in the request URL');
  }
  const raw = await readBody(r.req);
  const body = decodeObjectBody(raw, r.req.headers['content-type']);
  const options = writeOptions(r);
  options.decoding = bodyDecoding(raw, r.req.headers['content-type'], 'object', options.fieldValidation);
  const object = withRequestNamespace(r, checkTypeMeta(r, body));
  respondObject(r, 201, createObject(r.plane, r.type, object, options));
}
