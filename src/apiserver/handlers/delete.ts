/**
 * DELETE of one object: immediately (200 + a Success Status naming the uid), or — when
 * finalizers hold it — by marking it (200 + the object with `deletionTimestamp`). A Namespace
 * turns Terminating and is emptied first (200 + the Namespace).
 */
import { invalid, notSupported, badRequest } from '../errors.ts';
import { decodeBody, readBody, writeJson } from '../http/io.ts';
import { isPlainObject } from '../objects.ts';
import { deleteObject, getObject, type DeleteOptions } from '../writes.ts';
import type { ResourceRequest } from './context.ts';
import { respondObject } from './render.ts';

const POLICIES = ['Background', 'Foreground', 'Orphan'];

/** DeleteOptions from the body (kubectl sends one without kind/apiVersion) and the query. */
export async function deleteOptions(r: ResourceRequest): Promise<DeleteOptions> {
  const body = await readBody(r.req);
  const fromBody = body.length > 0 ? decodeBody(body, 'application/json') : {};
  if (!isPlainObject(fromBody)) throw badRequest('DeleteOptions must be a JSON object');
  const policy = (fromBody.propagationPolicy ?? r.query.get('propagationPolicy') ?? undefined) as
    string | undefined;
  if (policy !== undefined && !POLICIES.includes(policy)) {
    throw invalid('DeleteOptions', 'meta.k8s.io', '', [notSupported('propagationPolicy', policy, POLICIES)]);
  }
  const dryRun = [...((fromBody.dryRun as string[] | undefined) ?? []), ...r.query.getAll('dryRun')];
  for (const value of dryRun) {
    if (value !== 'All') throw badRequest(`Invalid dry run option: ${value}: valid values are: All`);
  }
  return {
    propagationPolicy: policy as DeleteOptions['propagationPolicy'],
    preconditions: fromBody.preconditions as DeleteOptions['preconditions'],
    dryRun: dryRun.length > 0,
    user: r.user,
  };
}

export async function handleDelete(r: ResourceRequest): Promise<void> {
  if (r.subresource) throw badRequest(`DELETE is not supported on the ${r.subresource} subresource`);
  const options = await deleteOptions(r);
  const old = getObject(r.plane, r.type, r.namespace, r.name!);
  if (r.type.kind === 'Namespace' && r.type.group === '') {
    respondObject(r, 200, options.dryRun ? old : r.plane.terminateNamespace(old));
    return;
  }
  const result = deleteObject(r.plane, r.type, old, options);
  if (result.pending) {
    respondObject(r, 200, result.object);
    return;
  }
  writeJson(r.res, 200, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: r.name, group: r.type.group, kind: r.type.plural, uid: old.metadata.uid },
  });
}
