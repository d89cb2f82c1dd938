/**
 * The hub kinds the propagation engine reads and writes, as ResourceIds, and the store indexes
 * its components share: bindings by the permanent-id of the policy claiming them, Works by the
 * permanent-id of their binding (propagation.md §4.3: "the engine finds a binding's Works by the
 * binding's permanent-id label").
 *
 * Guarantees: an index function is one constant per name, so every component asking for the same
 * index on a shared informer gets the same one (Store.addIndex accepts it twice).
 */
import { clusterKind } from '../apis/cluster/v1alpha1/cluster.ts';
import {
  CPP_PERMANENT_ID_LABEL,
  clusterPropagationPolicyKind,
} from '../apis/policy/v1alpha1/cluster-propagation-policy.ts';
import { PP_PERMANENT_ID_LABEL, propagationPolicyKind } from '../apis/policy/v1alpha1/propagation-policy.ts';
import {
  clusterResourceBindingKind,
  CRB_PERMANENT_ID_LABEL,
} from '../apis/work/v1alpha2/cluster-resource-binding.ts';
import { RB_PERMANENT_ID_LABEL, resourceBindingKind } from '../apis/work/v1alpha2/resource-binding.ts';
import { workKind } from '../apis/work/v1alpha1/work.ts';
import type { KubeObject, ResourceId } from '../client/types.ts';
import { resourceIdOf } from '../runtime/resource-ids.ts';
import type { IndexFunction } from '../runtime/store.ts';

export const PROPAGATION_POLICIES = resourceIdOf(propagationPolicyKind);
export const CLUSTER_PROPAGATION_POLICIES = resourceIdOf(clusterPropagationPolicyKind);
export const RESOURCE_BINDINGS = resourceIdOf(resourceBindingKind);
export const CLUSTER_RESOURCE_BINDINGS = resourceIdOf(clusterResourceBindingKind);
export const WORKS = resourceIdOf(workKind);
export const CLUSTERS = resourceIdOf(clusterKind);
export const CUSTOM_RESOURCE_DEFINITIONS: ResourceId = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};

/** Bindings and templates by the permanent-id of the PP or CPP claiming them. */
export const BY_CLAIM_ID = 'byClaimId';
export const byClaimId: IndexFunction<KubeObject> = (object) => {
  const labels = object.metadata.labels ?? {};
  return [labels[PP_PERMANENT_ID_LABEL], labels[CPP_PERMANENT_ID_LABEL]].filter(
    (id): id is string => id !== undefined && id !== '',
  );
};

/** Works by the permanent-id of the binding they come from (RB or CRB label). */
export const BY_BINDING_ID = 'byBindingId';
export const byBindingId: IndexFunction<KubeObject> = (object) => {
  const labels = object.metadata.labels ?? {};
  return [labels[RB_PERMANENT_ID_LABEL], labels[CRB_PERMANENT_ID_LABEL]].filter(
    (id): id is string => id !== undefined && id !== '',
  );
};

/** The apiVersion of a ResourceId, as templates and selectors spell it. */
export function apiVersionOf(id: ResourceId): string {
  return id.group === '' ? id.version : `${id.group}/${id.version}`;
}
