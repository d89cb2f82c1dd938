/**
 * Selector scoring (propagation.md §2.1): how well one policy's `resourceSelectors` pick a
 * template — 0 mismatch, 1 kind only, 2 label selector, 3 name — and whether a policy matches.
 *
 * Guarantees: apiVersion and kind compare exactly; a PP entry's empty namespace means the PP's
 * own namespace and a PP entry naming another namespace matches nothing; a CPP entry's empty
 * namespace means every namespace; `name`, when set, is decisive and the label selector is not
 * consulted. A policy's implicit priority for a template is its best entry's score.
 */
import type { ResourceSelector } from '../apis/policy/v1alpha1/policy-spec.ts';
import type { KubeObject } from '../client/types.ts';
import type { PolicyTier } from './policy-claim.ts';
import { matchesLabelSelector } from './label-selector-match.ts';

export const SCORE_NONE = 0;
export const SCORE_KIND = 1;
export const SCORE_LABELS = 2;
export const SCORE_NAME = 3;

/** The policy as selection needs it: its tier, namespace (PP only) and selectors. */
export interface SelectingPolicy {
  tier: PolicyTier;
  namespace?: string;
  resourceSelectors: ResourceSelector[];
}

/** The namespace an entry effectively names; undefined for "every namespace"; null for "none". */
export function effectiveNamespace(
  policy: SelectingPolicy,
  entry: ResourceSelector,
): string | undefined | null {
  if (policy.tier === 'PropagationPolicy') {
    if (!entry.namespace) return policy.namespace;
    return entry.namespace === policy.namespace ? entry.namespace : null;
  }
  return entry.namespace || undefined;
}

export function scoreEntry(policy: SelectingPolicy, entry: ResourceSelector, template: KubeObject): number {
  if (entry.apiVersion !== template.apiVersion || entry.kind !== template.kind) return SCORE_NONE;
  const namespace = effectiveNamespace(policy, entry);
  if (namespace === null) return SCORE_NONE;
  if (namespace !== undefined && namespace !== (template.metadata.namespace ?? '')) return SCORE_NONE;
  if (entry.name) return entry.name === template.metadata.name ? SCORE_NAME : SCORE_NONE;
  if (!entry.labelSelector) return SCORE_KIND;
  return matchesLabelSelector(entry.labelSelector, template.metadata.labels) ? SCORE_LABELS : SCORE_NONE;
}

/** The implicit priority of `policy` for `template`: its best entry's score (0: no match). */
export function implicitPriority(policy: SelectingPolicy, template: KubeObject): number {
  let best = SCORE_NONE;
  for (const entry of policy.resourceSelectors) best = Math.max(best, scoreEntry(policy, entry, template));
  return best;
}

export function policyMatches(policy: SelectingPolicy, template: KubeObject): boolean {
  return implicitPriority(policy, template) > SCORE_NONE;
}
