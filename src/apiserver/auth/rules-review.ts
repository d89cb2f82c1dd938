/**
 * SelfSubjectRulesReview (authorization.k8s.io/v1): every action the asker may take in one
 * namespace, which `kubectl auth can-i --list` prints as a table.
 *
 * Guarantees: the answer is the review with `kind`, `apiVersion`, an empty `metadata`, its spec as
 * sent, and `status` holding `resourceRules` and `nonResourceRules` — the rules of every role bound
 * to the asker cluster-wide or in `spec.namespace`, followed by what every authenticated identity
 * may do here (discovery, `/version`, OpenAPI; creating SelfSubjectAccessReviews and
 * SelfSubjectRulesReviews), as Kubernetes' `system:discovery` and `system:basic-user` roles grant
 * it — and `incomplete` with an `evaluationError` when a binding names a role that does not exist.
 * A superuser (`system:masters`) gets `*` on every resource and every path, as Kubernetes answers.
 */
import { badRequest } from '../errors.ts';
import { isPlainObject } from '../objects.ts';
import type { PolicyRule, RbacAuthorizer } from './rbac.ts';
import type { Identity } from './tokens.ts';

const KIND = 'SelfSubjectRulesReview';
const GROUP = 'authorization.k8s.io';

/** What server.ts lets every authenticated identity do (Kubernetes' discovery and basic-user roles). */
const EVERYONE_RESOURCE_RULES = [
  {
    verbs: ['create'],
    apiGroups: [GROUP],
    resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
  },
];
const EVERYONE_NON_RESOURCE_RULES = [
  {
    verbs: ['get'],
    nonResourceURLs: [
      '/api',
      '/api/*',
      '/apis',
      '/apis/*',
      '/openapi',
      '/openapi/*',
      '/version',
      '/version/',
    ],
  },
];

export function selfSubjectRulesReview(
  authorizer: RbacAuthorizer,
  identity: Identity,
  review: Record<string, unknown>,
): Record<string, unknown> {
  const spec = review.spec ?? {};
  if (!isPlainObject(spec)) throw badRequest(`${KIND}.spec must be an object`);
  const namespace = spec.namespace ?? '';
  if (typeof namespace !== 'string') throw badRequest(`${KIND}.spec.namespace must be a string`);
  const { superuser, rules, errors } = authorizer.rulesFor(identity, namespace);
  const held = superuser
    ? [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [], nonResourceURLs: ['*'] }]
    : rules;
  const status: Record<string, unknown> = {
    resourceRules: [
      ...held.filter((r) => r.resources.length > 0).map(resourceRule),
      ...EVERYONE_RESOURCE_RULES,
    ],
    nonResourceRules: [
      ...held
        .filter((r) => r.nonResourceURLs.length > 0)
        .map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
      ...EVERYONE_NON_RESOURCE_RULES,
    ],
    incomplete: errors.length > 0,
  };
  if (errors.length > 0) status.evaluationError = errors.join(', ');
  return { ...review, kind: KIND, apiVersion: `${GROUP}/v1`, metadata: {}, spec: { namespace }, status };
}

function resourceRule(rule: PolicyRule): Record<string, unknown> {
  return {
    verbs: rule.verbs,
    apiGroups: rule.apiGroups,
    resources: rule.resources,
    ...(rule.resourceNames.length > 0 && { resourceNames: rule.resourceNames }),
  };
}
