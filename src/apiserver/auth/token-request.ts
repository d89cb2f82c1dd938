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
 *
 * The token is signed (signed-tokens.ts: HMAC-SHA256 under the key of the data directory) and
 * carries what these checks need — user, groups, the issuing plane, the ServiceAccount's
 * namespace, name and uid, the expiry — so a server restarted on the same data directory accepts
 * it still (the ServiceAccount and the plane's clock are read there again), and a server on
 * another data directory (another key) refuses it, as does any altered token.
 */
import { invalid, invalidValue, notFound, badRequest } from '../errors.ts';
import { isPlainObject, nowRfc3339 } from '../objects.ts';
import type { Plane } from '../plane.ts';
import { PROJECT_PLANE_NAME_PREFIX } from '../plane-names.ts';
import { objectKey } from '../resources/resource-type.ts';
import type { SignedTokens } from './signed-tokens.ts';
import type { Identity } from './tokens.ts';

/** server.ts's name for the root plane. */
const ROOT_PLANE_NAME = 'root';

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
  signer: SignedTokens,
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
  const claims: ServiceAccountClaims = {
    sub: serviceAccountUser(namespace, name),
    groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`],
    plane: plane.name,
    namespace,
    name,
    uid: account.metadata.uid!,
    iat: plane.now().getTime() / 1000,
    exp: expiresMs / 1000,
  };
  const token = signer.sign({ ...claims });
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: null },
    spec: { audiences: [], ...spec, expirationSeconds: requested, boundObjectRef: null },
    status: { token, expirationTimestamp: nowRfc3339(new Date(expiresMs)) },
  };
}

/** What a ServiceAccount token carries (its JWT payload); `iat` and `exp` in seconds (RFC 7519). */
interface ServiceAccountClaims {
  sub: string;
  groups: string[];
  plane: string;
  namespace: string;
  name: string;
  uid: string;
  iat: number;
  exp: number;
}

function asClaims(payload: Record<string, unknown>): ServiceAccountClaims | undefined {
  const { sub, groups, plane, namespace, name, uid, iat, exp } = payload;
  if (typeof sub !== 'string' || typeof plane !== 'string' || typeof namespace !== 'string') return undefined;
  if (typeof name !== 'string' || typeof uid !== 'string') return undefined;
  if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  if (!Array.isArray(groups) || !groups.every((g): g is string => typeof g === 'string')) return undefined;
  return { sub, groups, plane, namespace, name, uid, iat, exp };
}

/**
 * The identity of a ServiceAccount token `signer` signed, for a request to plane `served`:
 * undefined once it has expired by its issuing plane's clock, once that plane no longer holds the
 * ServiceAccount with the token's uid (or is gone), and in any plane but its issuer (the root's
 * tokens: also its project planes).
 */
export function serviceAccountIdentity(
  signer: SignedTokens,
  planeOf: (name: string) => Plane | undefined,
  token: string,
  served: string | undefined,
): Identity | undefined {
  const payload = signer.verify(token);
  const claims = payload && asClaims(payload);
  if (!claims) return undefined;
  const acceptedHere =
    served === undefined ||
    served === claims.plane ||
    (claims.plane === ROOT_PLANE_NAME && served.startsWith(PROJECT_PLANE_NAME_PREFIX));
  if (!acceptedHere) return undefined;
  const issuer = planeOf(claims.plane);
  if (!issuer || issuer.now().getTime() >= claims.exp * 1000) return undefined;
  try {
    const account = issuer.log.get(SERVICE_ACCOUNTS_STORAGE, objectKey(claims.namespace, claims.name));
    if (account?.metadata.uid !== claims.uid) return undefined;
  } catch {
    return undefined; // the plane is closed
  }
  return { name: claims.sub, groups: [...claims.groups] };
}
