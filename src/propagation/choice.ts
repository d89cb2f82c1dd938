/**
 * The choice for an unclaimed template (propagation.md §2.3): a matching PP of the template's
 * namespace always beats every CPP; within a tier the highest `priority` wins, then the highest
 * implicit priority (name > label selector > kind only), then the name that sorts first, byte
 * by byte.
 *
 * Guarantees: only policies that are live (no deletionTimestamp) and carry their permanent-id
 * label are candidates; the answer is a pure function of the candidates, so every replica and
 * every restart chooses alike.
 */
import type { KubeObject } from '../client/types.ts';
import type { PolicyTier } from './policy-claim.ts';
import { implicitPriority, SCORE_NONE } from './selectors.ts';
import { policyIdOf, selectingPolicy, type Policy } from './policy-model.ts';

export interface Choice {
  policy: Policy;
  tier: PolicyTier;
  id: string;
}

/** The winning policy for `template`, or undefined when none matches. */
export function choosePolicy(
  template: KubeObject,
  propagationPolicies: readonly Policy[],
  clusterPolicies: readonly Policy[],
): Choice | undefined {
  if (template.metadata.namespace) {
    const local = best(
      template,
      propagationPolicies.filter((policy) => policy.metadata.namespace === template.metadata.namespace),
      'PropagationPolicy',
    );
    if (local) return local;
  }
  return best(template, clusterPolicies, 'ClusterPropagationPolicy');
}

function best(template: KubeObject, policies: readonly Policy[], tier: PolicyTier): Choice | undefined {
  let winner: { choice: Choice; priority: number; implicit: number } | undefined;
  for (const policy of policies) {
    const id = policyIdOf(policy, tier);
    if (!id || policy.metadata.deletionTimestamp) continue;
    const implicit = implicitPriority(selectingPolicy(policy, tier), template);
    if (implicit === SCORE_NONE) continue;
    const priority = policy.spec.priority ?? 0;
    if (winner && !beats(priority, implicit, policy.metadata.name!, winner)) continue;
    winner = { choice: { policy, tier, id }, priority, implicit };
  }
  return winner?.choice;
}

function beats(
  priority: number,
  implicit: number,
  name: string,
  current: { choice: Choice; priority: number; implicit: number },
): boolean {
  if (priority !== current.priority) return priority > current.priority;
  if (implicit !== current.implicit) return implicit > current.implicit;
  return Buffer.compare(Buffer.from(name), Buffer.from(current.choice.policy.metadata.name!)) < 0;
}
