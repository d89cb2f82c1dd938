/**
 * The TokenRequest subresource of ServiceAccounts (authentication.k8s.io/v1), as
 * `kubectl create token NAME -n NS --duration D` asks for it: a bearer token for the user
 * `system:serviceaccount:NS:NAME` in the groups `system:serviceaccounts` and
 * `system:serviceaccounts:NS` (and `system:authenticated`, as every identity).
 *
 * Guarantees: the ServiceAccount must exist in the plane asked (404 otherwise, worded as
 * Kubernetes words it); `spec.expirationSeconds` defaults to 3600 and may not be under 600 (422,
 * Kubernetes' message); the answer is the TokenRequest with `status.token` and
 * `status.expirationTimestamp`. The token is refused from its expiry on (by the plane's clock),
 * and from the moment the ServiceAccount it was minted for is deleted — a new ServiceAccount of
 * the same name has another uid and does not revive it. As a cluster's ServiceAccount tokens
 * are its own, the token is accepted only by the plane it was minted in — and, for the root plane
 * (Milo's platform), by the project planes served under it, as Milo reaches them with the
 * platform's credentials.
 * Caveat: tokens are opaque, not JWTs, and live in memory: a restarted server has forgotten them.
 */
import { invalid, invalidValue, notFound, badRequest } from '../errors.ts';
import { isPlainObject, nowRfc3339 } from '../objects.ts';
import type { Plane } from '../plane.ts';
import { objectKey } from '../resources/resource-type.ts';
import type { TokenAuthenticator } from './tokens.ts';

/** server.ts's names for the root plane and its project planes (`project-<name>`). */
const ROOT_PLANE_NAME = 'root';
const PROJECT_PLANE_NAME_PREFIX = 'project-';

export const SERVICE_ACCOUNTS_STORAGE = '/serviceaccounts';
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const DEFAULT_EXPIRATION_SECONDS = 3600;
export const MIN_EXPIRATION_SECONDS = 600;
export const TOO_SHORT = 'may not specify a duration less than 10 minutes';

export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

export function requestToken(
  plane: Plane,
  authenticator: TokenAuthenticator,
  namespace: string,
  name: string,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const account = plane.log.get(SERVICE_ACCOUNTS_STORAGE, objectKey(namespace, name));
  if (!account) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
  const spec = body.spec ?? {};
  if (!isPlainObject(spec)) throw badRequest('TokenRequest.spec must be an object');
  const requested = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  if (typeof requested !== 'number' || !Number.isInteger(requested)) {
    throw badRequest('TokenRequest.spec.expirationSeconds must be an integer');
  }
  if (requested < MIN_EXPIRATION_SECONDS) {
    throw invalid('TokenRequest', 'authentication.k8s.io', name, [
      invalidValue('spec.expirationSeconds', requested, TOO_SHORT),
    ]);
  }
  const expiresMs = plane.now().getTime() + requested * 1000;
  const uid = account.metadata.uid;
  const valid = (): boolean => {
    if (plane.now().getTime() >= expiresMs) return false;
    try {
      return plane.log.get(SERVICE_ACCOUNTS_STORAGE, objectKey(namespace, name))?.metadata.uid === uid;
    } catch {
      return false; // the plane is gone
    }
  };
  const acceptedBy = (served: string): boolean =>
    served === plane.name || (plane.name === ROOT_PLANE_NAME && served.startsWith(PROJECT_PLANE_NAME_PREFIX));
  const token = authenticator.mintBound(
    {
      name: serviceAccountUser(namespace, name),
      groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`],
    },
    valid,
    acceptedBy,
  );
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: null },
    spec: { audiences: [], ...spec, expirationSeconds: requested, boundObjectRef: null },
    status: { token, expirationTimestamp: nowRfc3339(new Date(expiresMs)) },
  };
}
