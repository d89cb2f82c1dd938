/**
 * Foreign policy claims (controllers.md §7 step 5): a hub NetworkContext or Subnet of location X
 * whose Karmada claim metadata names a policy other than `location-X` — a sticky claim by, say,
 * a fleet-wide policy, which may carry the location's addressing to cells that do not serve it.
 *
 * Guarantees: detection reads the claim metadata only — label
 * `clusterpropagationpolicy.karmada.io/permanent-id` with annotation
 * `clusterpropagationpolicy.karmada.io/name` (a ClusterPropagationPolicy), or label
 * `propagationpolicy.karmada.io/permanent-id` with annotation `propagationpolicy.karmada.io/name`
 * (a PropagationPolicy, never `location-X`) — and never writes it: the metadata belongs to the
 * propagation layer. The hub index `byLocationLabel` files objects under their
 * `networking.datumapis.com/location` label; its function is a module-level constant.
 */
import { LOCATION_LABEL } from '../../apis/common/labels.ts';
import { locationPolicyName } from '../../apis/networking/v1alpha/serving-location.ts';
import {
  clusterPropagationPolicyKind,
  CPP_NAME_ANNOTATION,
  CPP_PERMANENT_ID_LABEL,
} from '../../apis/policy/v1alpha1/cluster-propagation-policy.ts';
import {
  PP_NAME_ANNOTATION,
  PP_PERMANENT_ID_LABEL,
  propagationPolicyKind,
} from '../../apis/policy/v1alpha1/propagation-policy.ts';
import type { KubeObject } from '../../client/types.ts';
import type { InformerEvent } from '../../runtime/informer-contract.ts';

export const BY_LOCATION_LABEL = 'byLocationLabel';

const byLocationLabel = (object: KubeObject): string[] => {
  const location = object.metadata.labels?.[LOCATION_LABEL];
  return location ? [location] : [];
};

/** The index of hub NetworkContexts and Subnets by location label. */
export const locationLabelIndexes = { [BY_LOCATION_LABEL]: byLocationLabel };

export interface ClaimingPolicy {
  kind: 'ClusterPropagationPolicy' | 'PropagationPolicy';
  name: string;
}

/** The policy claiming `object` when it is not `location-<location>`; undefined otherwise. */
export function foreignClaim(object: KubeObject, location: string): ClaimingPolicy | undefined {
  const labels = object.metadata.labels ?? {};
  const annotations = object.metadata.annotations ?? {};
  const clusterPolicy = annotations[CPP_NAME_ANNOTATION];
  if (labels[CPP_PERMANENT_ID_LABEL] && clusterPolicy && clusterPolicy !== locationPolicyName(location))
    return { kind: clusterPropagationPolicyKind.kind as ClaimingPolicy['kind'], name: clusterPolicy };
  const policy = annotations[PP_NAME_ANNOTATION];
  if (labels[PP_PERMANENT_ID_LABEL] && policy)
    return { kind: propagationPolicyKind.kind as ClaimingPolicy['kind'], name: policy };
  return undefined;
}

/** Identifies one (object, policy) finding, so each is reported once. */
export function findingKey(object: KubeObject, policy: ClaimingPolicy): string {
  const { namespace, name, uid } = object.metadata;
  return JSON.stringify([object.kind, namespace, name, uid, policy.kind, policy.name]);
}

/**
 * Whether `event` can change a foreign-claim finding or count: the object's location or the
 * policy claiming it changed, or a claimed object came or went. A context's or subnet's other
 * churn (thousands of them at scale) passes by.
 */
export function foreignClaimChanged(event: InformerEvent<KubeObject>): boolean {
  if (event.type === 'DELETED') return claimOf(event.object) !== '';
  return claimOf(event.object) !== claimOf(event.previous);
}

function claimOf(object: KubeObject | undefined): string {
  const location = object?.metadata.labels?.[LOCATION_LABEL];
  const policy = location ? foreignClaim(object, location) : undefined;
  return policy ? JSON.stringify([location, object?.metadata.uid, policy.kind, policy.name]) : '';
}
