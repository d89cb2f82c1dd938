/**
 * Parses a request path (already relative to its plane) into what it asks for, the way the
 * Kubernetes API server's RequestInfo does.
 *
 * Guarantees: `/api/v1/namespaces/<ns>/<plural>/…` is namespaced, `/api/v1/namespaces/<name>`
 * is the Namespace itself and `/api/v1/namespaces/<name>/{status,finalize}` its subresources;
 * a GET on a collection is `watch` when `watch=true|1`.
 */
import { badRequest } from '../errors.ts';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export type RequestTarget =
  | { kind: 'version' }
  | { kind: 'health'; probe: string }
  | { kind: 'legacy-versions' }
  | { kind: 'group-list' }
  | { kind: 'group'; group: string }
  | { kind: 'resource-list'; group: string; version: string }
  | { kind: 'openapi-v3-index' }
  | { kind: 'openapi-v3'; group: string; version: string }
  | { kind: 'openapi-v2' }
  | {
      kind: 'resource';
      group: string;
      version: string;
      plural: string;
      namespace?: string;
      name?: string;
      subresource?: string;
      verb: Verb;
    }
  | { kind: 'unknown' };

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

function verbOf(method: string, hasName: boolean, watch: boolean, hasSubresource = false): Verb | undefined {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watch) return 'watch';
      return hasName ? 'get' : 'list';
    case 'POST':
      // A named object takes a POST only on a subresource (serviceaccounts/NAME/token).
      return hasName && !hasSubresource ? undefined : 'create';
    case 'PUT':
      return hasName ? 'update' : undefined;
    case 'PATCH':
      return hasName ? 'patch' : undefined;
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

export class MethodNotAllowed extends Error {}

/** A path segment decoded; 400 when it is not valid percent-encoded UTF-8 (e.g. `%ff`). */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`the request path segment ${JSON.stringify(segment)} is not valid URL encoding`);
  }
}

export function parseRequest(method: string, path: string, query: URLSearchParams): RequestTarget {
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map(decodeSegment);
  if (parts.length === 1 && parts[0] === 'version') return { kind: 'version' };
  if (parts.length === 1 && ['healthz', 'readyz', 'livez'].includes(parts[0]))
    return { kind: 'health', probe: parts[0] };
  if (parts[0] === 'openapi') {
    if (parts[1] === 'v2' && parts.length === 2) return { kind: 'openapi-v2' };
    if (parts[1] === 'v3' && parts.length === 2) return { kind: 'openapi-v3-index' };
    if (parts[1] === 'v3' && parts[2] === 'api' && parts.length === 4) {
      return { kind: 'openapi-v3', group: '', version: parts[3] };
    }
    if (parts[1] === 'v3' && parts[2] === 'apis' && parts.length === 5) {
      return { kind: 'openapi-v3', group: parts[3], version: parts[4] };
    }
    return { kind: 'unknown' };
  }
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api') {
    if (parts.length === 1) return { kind: 'legacy-versions' };
    group = '';
    version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    if (parts.length === 1) return { kind: 'group-list' };
    if (parts.length === 2) return { kind: 'group', group: parts[1] };
    group = parts[1];
    version = parts[2];
    rest = parts.slice(3);
  } else {
    return { kind: 'unknown' };
  }
  if (rest.length === 0) return { kind: 'resource-list', group, version };

  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2);
    else namespace = undefined;
  }
  const [plural, name, subresource, ...extra] = rest;
  if (extra.length > 0) return { kind: 'unknown' };
  const watch = query.get('watch') === 'true' || query.get('watch') === '1';
  const verb = verbOf(method, name !== undefined, watch, subresource !== undefined);
  if (!verb) throw new MethodNotAllowed();
  return { kind: 'resource', group, version, plural, namespace, name, subresource, verb };
}
