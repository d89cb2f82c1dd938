/**
 * PropagationPolicy (`pp`, apis.md §6): a namespaced Karmada policy on the hub; it propagates
 * templates of its own namespace only.
 *
 * Guarantees: a policy claims nothing until it carries its permanent-id label, which the
 * engine adds once with a fresh UUID, together with its finalizer. The claim keys are written
 * on templates and bindings by the propagation layer only.
 */
import { Type } from '@sinclair/typebox';
import { ageColumn, defineKind, fieldColumn } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { POLICY_GROUP, POLICY_VERSION, PolicySpec } from './policy-spec.ts';

export const PP_PERMANENT_ID_LABEL = 'propagationpolicy.karmada.io/permanent-id';
export const PP_NAMESPACE_ANNOTATION = 'propagationpolicy.karmada.io/namespace';
export const PP_NAME_ANNOTATION = 'propagationpolicy.karmada.io/name';
export const PP_FINALIZER = 'karmada.io/propagation-policy-controller';

export const PropagationPolicySchema = Type.Object(
  { spec: PolicySpec },
  { description: 'Propagates templates of its own namespace to the clusters its placement selects.' },
);
export type PropagationPolicy = TypedObject<typeof PropagationPolicySchema>;

/** Printer columns shared with ClusterPropagationPolicy, as Karmada prints them. */
export const policyColumns = [
  fieldColumn('CONFLICT-RESOLUTION', '.spec.conflictResolution'),
  fieldColumn('PRIORITY', '.spec.priority'),
  ageColumn('AGE'),
];

export const propagationPolicyKind = defineKind({
  group: POLICY_GROUP,
  version: POLICY_VERSION,
  kind: 'PropagationPolicy',
  plural: 'propagationpolicies',
  scope: 'Namespaced',
  shortNames: ['pp'],
  statusSubresource: false,
  printerColumns: policyColumns,
  schema: PropagationPolicySchema,
});
