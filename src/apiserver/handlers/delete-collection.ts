/** DELETE on a collection: deletes every selected object; answers the list of what it deleted. */
import { presentedForm } from '../resources/resource-type.ts';
import { deleteObject } from '../writes.ts';
import type { ResourceRequest } from './context.ts';
import { deleteOptions } from './delete.ts';
import { requestFilter } from './filter.ts';
import { respondList } from './render.ts';

export async function handleDeleteCollection(r: ResourceRequest): Promise<void> {
  const options = await deleteOptions(r);
  const filter = requestFilter(r.type, r.namespace, r.query);
  const deleted = r.plane.log
    .list(r.type.storage, r.namespace)
    .filter(filter)
    .map((stored) => deleteObject(r.plane, r.type, presentedForm(r.type, stored), options).object);
  respondList(r, deleted, String(r.plane.log.revision));
}
