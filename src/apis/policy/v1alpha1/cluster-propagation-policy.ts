/**
 * ClusterPropagationPolicy (`cpp`, apis.md §6): a cluster-scoped Karmada policy on the hub; it
 * propagates cluster-scoped templates and namespaced templates in any namespace. netpresence
 * writes one per location, `location-<loc>` (serving-location.ts).
 *
 * Guarantees: as for PropagationPolicy, with its own permanent-id label, claim annotation and
 * finalizer.
 */
import { Type } from '@sinclair/typebox';
import { defineKind } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { POLICY_GROUP, POLICY_VERSION, PolicySpec } from './policy-spec.ts';
import { policyColumns } from './propagation-policy.ts';

export const CPP_PERMANENT_ID_LABEL = 'clusterpropagationpolicy.karmada.io/permanent-id';
export const CPP_NAME_ANNOTATION = 'clusterpropagationpolicy.karmada.io/name';
export const CPP_FINALIZER = 'karmada.io/cluster-propagation-policy-controller';

export const ClusterPropagationPolicySchema = Type.Object(
  { spec: PolicySpec },
  { description: 'Propagates cluster-scoped templates, and namespaced ones in any namespace.' },
);
export type ClusterPropagationPolicy = TypedObject<typeof ClusterPropagationPolicySchema>;

export const clusterPropagationPolicyKind = defineKind({
  group: POLICY_GROUP,
  version: POLICY_VERSION,
  kind: 'ClusterPropagationPolicy',
  plural: 'clusterpropagationpolicies',
  scope: 'Cluster',
  shortNames: ['cpp'],
  statusSubresource: false,
  printerColumns: policyColumns,
  schema: ClusterPropagationPolicySchema,
});
