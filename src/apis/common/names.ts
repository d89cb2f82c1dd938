/**
 * Name rules the deterministic names of apis.md §7.4 fall back on.
 *
 * Guarantees: `isDnsSubdomain` is Kubernetes' `IsDNS1123Subdomain` (lower case alphanumerics,
 * `-` and `.`, alphanumeric at both ends of each label, at most 253 characters); `shortHash` is
 * the first 12 hex characters of the SHA-256 of its parts joined by NUL.
 */
import { createHash } from 'node:crypto';

export const MAX_NAME_LENGTH = 253;

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function isDnsSubdomain(name: string): boolean {
  return name.length <= MAX_NAME_LENGTH && DNS_SUBDOMAIN.test(name);
}

export function shortHash(parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 12);
}
