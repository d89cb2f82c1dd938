/**
 * LIST of a collection, in one namespace or across all, with label and field selectors and
 * `limit`/`continue` paging.
 *
 * Guarantees: items are ordered by namespace, then name; the list's resourceVersion is the
 * plane's revision at read time; a continue token carries that revision and the last key, and
 * is refused with 410 Expired once the revision has left the watch window. Caveat: later pages
 * are read from the current state, not a snapshot at the first page's revision.
 */
import { badRequest, expired } from '../errors.ts';
import { objectKey, presentedForm } from '../resources/resource-type.ts';
import type { ResourceRequest } from './context.ts';
import { requestFilter } from './filter.ts';
import { respondList } from './render.ts';

interface ContinueToken {
  rv: number;
  start: string;
}

function decodeContinue(token: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as ContinueToken;
    if (typeof parsed.rv !== 'number' || typeof parsed.start !== 'string') throw new Error('malformed');
    return parsed;
  } catch {
    throw badRequest(`invalid continue token: ${token}`);
  }
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

export function handleList(r: ResourceRequest): void {
  if (r.query.get('resourceVersionMatch') && !r.query.get('resourceVersion')) {
    throw badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
  }
  const filter = requestFilter(r.type, r.namespace, r.query);
  const limit = Number(r.query.get('limit') ?? 0);
  const continued = r.query.get('continue') ? decodeContinue(r.query.get('continue')!) : undefined;
  if (continued && continued.rv < r.plane.log.oldestResumable) {
    throw expired(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
    );
  }
  const revision = continued?.rv ?? r.plane.log.revision;
  const items = [];
  let next: string | undefined;
  for (const stored of r.plane.log.list(r.type.storage, r.namespace)) {
    const key = objectKey(stored.metadata.namespace, stored.metadata.name!);
    if (continued && key <= continued.start) continue;
    if (!filter(stored)) continue;
    if (limit > 0 && items.length === limit) {
      next = encodeContinue({
        rv: revision,
        start: objectKey(items.at(-1)!.metadata.namespace, items.at(-1)!.metadata.name!),
      });
      break;
    }
    items.push(presentedForm(r.type, stored));
  }
  respondList(r, items, String(revision), next);
}
