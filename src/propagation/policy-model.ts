/**
 * A policy as the engine reads it (propagation.md §1.1): PP and CPP share one spec, and differ in
 * tier, permanent-id label and finalizer.
 *
 * Guarantees: `selectingPolicy` gives selection exactly the fields §2.1 reads; a policy without
 * its permanent-id label has no id (and never claims).
 */
import { CPP_FINALIZER, CPP_PERMANENT_ID_LABEL } from '../apis/policy/v1alpha1/cluster-propagation-policy.ts';
import type { PolicySpec } from '../apis/policy/v1alpha1/policy-spec.ts';
import { PP_FINALIZER, PP_PERMANENT_ID_LABEL } from '../apis/policy/v1alpha1/propagation-policy.ts';
import type { KubeObject } from '../client/types.ts';
import type { PolicyTier } from './policy-claim.ts';
import type { SelectingPolicy } from './selectors.ts';

export type Policy = KubeObject & { spec: PolicySpec };

export function tierOf(policy: KubeObject): PolicyTier {
  return policy.kind === 'PropagationPolicy' ? 'PropagationPolicy' : 'ClusterPropagationPolicy';
}

export function policyIdLabel(tier: PolicyTier): string {
  return tier === 'PropagationPolicy' ? PP_PERMANENT_ID_LABEL : CPP_PERMANENT_ID_LABEL;
}

export function policyFinalizer(tier: PolicyTier): string {
  return tier === 'PropagationPolicy' ? PP_FINALIZER : CPP_FINALIZER;
}

export function policyIdOf(policy: KubeObject, tier: PolicyTier): string | undefined {
  return policy.metadata.labels?.[policyIdLabel(tier)] || undefined;
}

export function selectingPolicy(policy: Policy, tier: PolicyTier): SelectingPolicy {
  return {
    tier,
    namespace: tier === 'PropagationPolicy' ? policy.metadata.namespace : undefined,
    resourceSelectors: policy.spec?.resourceSelectors ?? [],
  };
}
