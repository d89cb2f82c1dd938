/** GET of one object (also `/status`, which returns the whole object). */
import { pathNotFound } from '../errors.ts';
import { getObject } from '../writes.ts';
import type { ResourceRequest } from './context.ts';
import { respondObject } from './render.ts';

export function handleGet(r: ResourceRequest): void {
  if (r.subresource && r.subresource !== 'status') throw pathNotFound();
  respondObject(r, 200, getObject(r.plane, r.type, r.namespace, r.name!));
}
