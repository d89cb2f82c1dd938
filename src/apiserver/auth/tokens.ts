/**
 * Tokens: bearer-token authentication, the only credential the API server accepts
 * (spec/kube-api.md §1).
 *
 * Guarantees: a minted token is 32 random bytes, base64url. The authenticator keeps only each
 * token's SHA-256 digest, never the token, and neither logs nor returns a token it was given.
 * `authenticate` reads `Authorization: Bearer <token>` as the Kubernetes API server does (scheme
 * case-insensitive, surrounding whitespace ignored), finds the credential by digest and confirms it
 * with a constant-time comparison. Every identity it returns carries the group
 * `system:authenticated`, and is a copy the caller may change freely.
 * A token it does not hold is offered to its verifier, when it has one (a signed token that
 * carries its own identity, token-request.ts); the verifier's identity gets the same group.
 * Caveat: tokens live as long as the process; persisting them is the caller's business, and
 * `register` takes them back on the next start.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export interface Identity {
  name: string;
  groups: string[];
}

export const AUTHENTICATED_GROUP = 'system:authenticated';
export const INVALID_TOKEN = 'a bearer token must be non-empty and contain no whitespace';

const TOKEN_BYTES = 32;

interface Credential {
  digest: Buffer;
  identity: Identity;
  /** A bound token is accepted only by the planes this answers true for (its issuer's). */
  acceptedBy?: (plane: string) => boolean;
}

/** The identity of a token the authenticator does not hold, for a request to `plane`. */
export type TokenVerifier = (token: string, plane: string | undefined) => Identity | undefined;

export class TokenAuthenticator {
  // Keyed by the hex digest, so a lookup never touches the token itself.
  readonly #credentials = new Map<string, Credential>();
  #verifier?: TokenVerifier;

  /** Asks `verifier` about every token not minted or registered here. */
  verifyWith(verifier: TokenVerifier): void {
    this.#verifier = verifier;
  }

  /** A new token for `identity`, accepted by every plane or only by those `acceptedBy` answers true for. */
  mint(identity: Identity, acceptedBy?: (plane: string) => boolean): string {
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    this.register(token, identity, acceptedBy);
    return token;
  }

  register(token: string, identity: Identity, acceptedBy?: (plane: string) => boolean): void {
    if (token === '' || /\s/.test(token)) throw new Error(INVALID_TOKEN);
    const digest = digestOf(token);
    this.#credentials.set(digest.toString('hex'), { digest, identity: authenticated(identity), acceptedBy });
  }

  /** The identity of the header's token, for a request to `plane` (any plane when not given). */
  authenticate(authorizationHeader: string | undefined, plane?: string): Identity | undefined {
    const token = bearerToken(authorizationHeader);
    if (token === undefined) return undefined;
    const digest = digestOf(token);
    const credential = this.#credentials.get(digest.toString('hex'));
    if (credential === undefined) {
      const verified = this.#verifier?.(token, plane);
      return verified && authenticated(verified);
    }
    if (!timingSafeEqual(credential.digest, digest)) return undefined;
    if (plane !== undefined && credential.acceptedBy && !credential.acceptedBy(plane)) return undefined;
    return authenticated(credential.identity);
  }

  /** Forgets a token; answers whether it was known. */
  revoke(token: string): boolean {
    return this.#credentials.delete(digestOf(token).toString('hex'));
  }
}

/** The token of `Bearer <token>`, read as k8s.io/apiserver's bearertoken authenticator reads it. */
function bearerToken(header: string | undefined): string | undefined {
  const parts = header?.trim().split(' ') ?? [];
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer' || parts[1] === '') return undefined;
  return parts[1];
}

/** SHA-256 of the token's UTF-8 bytes; `hash` is the one-shot form, without a Hash object per request. */
function digestOf(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

function authenticated(identity: Identity): Identity {
  const groups = identity.groups.includes(AUTHENTICATED_GROUP)
    ? [...identity.groups]
    : [...identity.groups, AUTHENTICATED_GROUP];
  return { name: identity.name, groups };
}
