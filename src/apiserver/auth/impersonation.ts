/**
 * Impersonation, as Kubernetes' WithImpersonation filter does it: `Impersonate-User`,
 * `Impersonate-Group` (repeatable), `Impersonate-Uid` and `Impersonate-Extra-<key>` make a
 * request act as another identity when RBAC in the addressed plane lets the requester
 * `impersonate` each of them (resources `users`, `groups`, `uids`, `userextras/<key>`).
 *
 * Guarantees: headers are never ignored — each impersonated attribute is authorized, and the
 * first refused one is 403 worded as Kubernetes words it (`users "bob" is forbidden: User
 * "alice" cannot impersonate resource "users" in API group "" at the cluster scope`); the
 * impersonated identity counts as `system:authenticated`, as in Kubernetes.
 * Differs from Kubernetes: groups, a uid or extras without a user are 400 (Kubernetes answers
 * 500), so that no request can make this server report an internal error.
 */
import { badRequest } from '../errors.ts';
import { forbiddenError, type RbacAuthorizer, type RequestAttributes } from './rbac.ts';
import { AUTHENTICATED_GROUP, type Identity } from './tokens.ts';

const EXTRA_PREFIX = 'impersonate-extra-';
const IMPERSONATE_PREFIX = 'impersonate-';

/**
 * Whether a request carries any `Impersonate-*` header (`headers` as node names them, in lower
 * case): without one, `impersonated` answers the identity itself, and the distinct header lists
 * it reads need not be built.
 */
export function impersonates(headers: Record<string, unknown>): boolean {
  for (const name in headers) if (name.startsWith(IMPERSONATE_PREFIX)) return true;
  return false;
}

/** The identity a request acts as: `identity` itself, or whom its headers impersonate. */
export function impersonated(
  authorizer: RbacAuthorizer,
  identity: Identity,
  headers: Record<string, string[] | undefined>,
): Identity {
  const user = headers['impersonate-user']?.[0];
  const groups = (headers['impersonate-group'] ?? []).flatMap((g) => g.split(',')).map((g) => g.trim());
  const uid = headers['impersonate-uid']?.[0];
  const extras = Object.keys(headers).filter((h) => h.startsWith(EXTRA_PREFIX));
  if (user === undefined) {
    if (groups.length > 0 || uid !== undefined || extras.length > 0) {
      throw badRequest('requested impersonation of groups, a uid or extras without impersonating a user');
    }
    return identity;
  }
  const check = (resource: string, name: string, subresource?: string) => {
    const attributes: RequestAttributes = {
      verb: 'impersonate',
      group: '',
      resource,
      subresource,
      name,
      resourceRequest: true,
    };
    const decision = authorizer.authorize(identity, attributes);
    if (!decision.allowed) throw forbiddenError(identity, attributes, decision.reason);
  };
  check('users', user);
  for (const group of groups) check('groups', group);
  if (uid !== undefined) check('uids', uid);
  for (const header of extras) {
    for (const value of headers[header] ?? []) check('userextras', value, header.slice(EXTRA_PREFIX.length));
  }
  const asGroups = groups.includes(AUTHENTICATED_GROUP) ? groups : [...groups, AUTHENTICATED_GROUP];
  return { name: user, groups: asGroups };
}
