/**
 * SelfSubjectAccessReview (authorization.k8s.io/v1): answers "may I?" for the identity that asks,
 * as the Kubernetes API server does; `kubectl auth can-i` prints yes or no from `status.allowed`.
 *
 * Guarantees: the answer is the review with `kind`, `apiVersion` and an empty `metadata`, its spec
 * as sent, and `status` replaced by `{allowed}` plus `reason` when the authorizer gave one. The
 * spec must carry exactly one of `resourceAttributes` and `nonResourceAttributes` (422 Invalid,
 * worded as Kubernetes words it), and attribute values must be strings (400, worded as the
 * server's JSON decoder words it). `status.denied` is never set: RBAC has no explicit deny.
 * Caveats: `metadata` is not checked (Kubernetes requires it empty); `version`, `fieldSelector`
 * and `labelSelector` are accepted and ignored, as RBAC ignores them.
 */
import { ApiError, badRequest, invalid, invalidValue } from '../errors.ts';
import { isPlainObject } from '../objects.ts';
import type { RbacAuthorizer, RequestAttributes } from './rbac.ts';
import type { Identity } from './tokens.ts';

const KIND = 'SelfSubjectAccessReview';
const GROUP = 'authorization.k8s.io';

export const EXACTLY_ONE_ATTRIBUTES =
  'exactly one of nonResourceAttributes or resourceAttributes must be specified';
export const BOTH_ATTRIBUTES = 'cannot be specified in combination with resourceAttributes';

export function selfSubjectAccessReview(
  authorizer: RbacAuthorizer,
  identity: Identity,
  review: Record<string, unknown>,
): Record<string, unknown> {
  const spec = objectField(review, 'spec', `${KIND}.spec`, `v1.${KIND}Spec`) ?? {};
  const decision = authorizer.authorize(identity, attributesOf(spec));
  const status: Record<string, unknown> = { allowed: decision.allowed };
  if (decision.reason) status.reason = decision.reason;
  return { ...review, kind: KIND, apiVersion: `${GROUP}/v1`, metadata: {}, status };
}

function attributesOf(spec: Record<string, unknown>): RequestAttributes {
  const resource = objectField(
    spec,
    'resourceAttributes',
    `${KIND}Spec.spec.resourceAttributes`,
    'v1.ResourceAttributes',
  );
  const nonResource = objectField(
    spec,
    'nonResourceAttributes',
    `${KIND}Spec.spec.nonResourceAttributes`,
    'v1.NonResourceAttributes',
  );
  if (resource && nonResource) throw bothAttributes(nonResource);
  if (nonResource) {
    const read = stringReader(nonResource, 'NonResourceAttributes', 'spec.nonResourceAttributes');
    return { resourceRequest: false, verb: read('verb'), path: read('path'), group: '', resource: '' };
  }
  if (!resource) {
    throw invalid(KIND, GROUP, '', [invalidValue('spec.resourceAttributes', 'null', EXACTLY_ONE_ATTRIBUTES)]);
  }
  const read = stringReader(resource, 'ResourceAttributes', 'spec.resourceAttributes');
  return {
    resourceRequest: true,
    verb: read('verb'),
    group: read('group'),
    resource: read('resource'),
    subresource: read('subresource'),
    namespace: read('namespace'),
    name: read('name'),
  };
}

function bothAttributes(nonResource: Record<string, unknown>): ApiError {
  const read = stringReader(nonResource, 'NonResourceAttributes', 'spec.nonResourceAttributes');
  // Kubernetes prints the value with Go's %#v of its internal type.
  const value = `authorization.NonResourceAttributes{Path:${JSON.stringify(read('path'))}, Verb:${JSON.stringify(read('verb'))}}`;
  return invalid(KIND, GROUP, '', [
    {
      reason: 'FieldValueInvalid',
      field: 'spec.nonResourceAttributes',
      detail: `Invalid value: ${value}: ${BOTH_ATTRIBUTES}`,
    },
  ]);
}

function objectField(
  parent: Record<string, unknown>,
  field: string,
  goField: string,
  goType: string,
): Record<string, unknown> | undefined {
  const value = parent[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw undecodable(value, goField, goType);
  return value;
}

function stringReader(attributes: Record<string, unknown>, goStruct: string, path: string) {
  return (field: string): string => {
    const value = attributes[field];
    if (value === undefined || value === null) return '';
    if (typeof value !== 'string') throw undecodable(value, `${goStruct}.${path}.${field}`, 'string');
    return value;
  };
}

function undecodable(value: unknown, goField: string, goType: string): ApiError {
  return badRequest(
    `${KIND} in version "v1" cannot be handled as a ${KIND}: json: cannot unmarshal ${jsonTypeOf(value)} into Go struct field ${goField} of type ${goType}`,
  );
}

/** A decoded JSON value's type as Go's decoder names it: string, number, bool, array or object. */
function jsonTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}
