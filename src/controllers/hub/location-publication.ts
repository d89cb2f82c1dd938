/**
 * What the location publisher writes for a location (controllers.md §7): the hub
 * ServingLocation, the ClusterPropagationPolicy `location-<loc>`, and the removal guard that
 * holds a removal while Ready clusters may still serve the location.
 *
 * Guarantees: each `…Patch` is a merge patch of exactly the keys the publisher owns that
 * differ, or undefined when nothing does — so a resync of an unchanged location writes nothing.
 * `publishedAt` moves only when the content does (generation, city code or topology); a
 * ServingLocation's spec edited by anyone else is brought back whole. On the policy, only the
 * published-by label, `conflictResolution`, the three selectors and
 * `placement.clusterAffinity` are owned; no priority and no other selector field is written.
 */
import { CLUSTER_LOCATION_LABEL, LOCATION_LABEL } from '../../apis/common/labels.ts';
import { ClusterConditionType, type Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import { NETWORKING_API_VERSION } from '../../apis/networking/v1alpha/group.ts';
import { CITY_CODE_TOPOLOGY_KEY, type Location } from '../../apis/networking/v1alpha/location.ts';
import { networkContextKind } from '../../apis/networking/v1alpha/network-context.ts';
import {
  LOCATION_PUBLISHER,
  locationPolicyName,
  PUBLISHED_BY_LABEL,
  RemovalBlockedReason,
  removalBlockedMessages,
  servingLocationKind,
  servingLocationName,
  type ServingLocation,
} from '../../apis/networking/v1alpha/serving-location.ts';
import { subnetKind } from '../../apis/networking/v1alpha/subnet.ts';
import {
  clusterPropagationPolicyKind,
  type ClusterPropagationPolicy,
} from '../../apis/policy/v1alpha1/cluster-propagation-policy.ts';
import type { KubeObject } from '../../client/types.ts';
import { isConditionTrue } from '../../runtime/conditions.ts';
import { mergePatchBetween, sameValue } from '../../runtime/merge-patch-diff.ts';

export const PUBLISHED_LABELS = { [PUBLISHED_BY_LABEL]: LOCATION_PUBLISHER };

export function isPublished(object: KubeObject): boolean {
  return object.metadata.labels?.[PUBLISHED_BY_LABEL] === LOCATION_PUBLISHER;
}

/** The trimmed city code of a topology; empty when it has none. */
export function cityCode(topology: Record<string, string> | undefined): string {
  return (topology?.[CITY_CODE_TOPOLOGY_KEY] ?? '').trim();
}

// ── ServingLocation ────────────────────────────────────────────────────────────────────────

export function servingLocationSpec(
  location: Location,
  held: ServingLocation | undefined,
  now: string,
): ServingLocation['spec'] {
  const topology = location.spec.topology;
  const generation = location.metadata.generation;
  const unchanged =
    held !== undefined &&
    held.spec.source?.generation === generation &&
    cityCode(held.spec.topology) === cityCode(topology) &&
    sameValue(held.spec.topology, topology);
  const publishedAt = unchanged && held.spec.source?.publishedAt ? held.spec.source.publishedAt : now;
  return {
    topology: { ...topology },
    source: { ...(generation !== undefined && { generation }), publishedAt },
  };
}

export function newServingLocation(location: string, spec: ServingLocation['spec']): ServingLocation {
  return {
    apiVersion: NETWORKING_API_VERSION,
    kind: servingLocationKind.kind,
    metadata: { name: servingLocationName(location), labels: { ...PUBLISHED_LABELS } },
    spec,
  };
}

export function servingLocationPatch(
  held: ServingLocation,
  spec: ServingLocation['spec'],
): object | undefined {
  const specChanges = mergePatchBetween(held.spec, spec);
  const labels = isPublished(held) ? undefined : PUBLISHED_LABELS;
  if (specChanges === undefined && !labels) return undefined;
  return { ...(labels && { metadata: { labels } }), ...(specChanges !== undefined && { spec: specChanges }) };
}

// ── ClusterPropagationPolicy location-<loc> ────────────────────────────────────────────────

type PolicySpec = ClusterPropagationPolicy['spec'];

export function policySpec(location: string): Required<
  Pick<PolicySpec, 'resourceSelectors' | 'conflictResolution'>
> & {
  placement: { clusterAffinity: NonNullable<NonNullable<PolicySpec['placement']>['clusterAffinity']> };
} {
  const byLocation = { labelSelector: { matchLabels: { [LOCATION_LABEL]: location } } };
  return {
    conflictResolution: 'Overwrite',
    resourceSelectors: [
      {
        apiVersion: NETWORKING_API_VERSION,
        kind: servingLocationKind.kind,
        name: servingLocationName(location),
      },
      { apiVersion: NETWORKING_API_VERSION, kind: networkContextKind.kind, ...byLocation },
      { apiVersion: NETWORKING_API_VERSION, kind: subnetKind.kind, ...byLocation },
    ],
    placement: {
      clusterAffinity: { labelSelector: { matchLabels: { [CLUSTER_LOCATION_LABEL]: location } } },
    },
  };
}

export function newPolicy(location: string): ClusterPropagationPolicy {
  return {
    apiVersion: clusterPropagationPolicyKind.apiVersion,
    kind: clusterPropagationPolicyKind.kind,
    metadata: { name: locationPolicyName(location), labels: { ...PUBLISHED_LABELS } },
    spec: policySpec(location),
  };
}

export function policyPatch(held: ClusterPropagationPolicy, location: string): object | undefined {
  const desired = policySpec(location);
  const spec: Record<string, unknown> = {};
  if (held.spec.conflictResolution !== desired.conflictResolution)
    spec.conflictResolution = desired.conflictResolution;
  if (!sameValue(held.spec.resourceSelectors, desired.resourceSelectors))
    spec.resourceSelectors = desired.resourceSelectors;
  const affinity = mergePatchBetween(held.spec.placement?.clusterAffinity, desired.placement.clusterAffinity);
  if (affinity !== undefined) spec.placement = { clusterAffinity: affinity };
  const labels = isPublished(held) ? undefined : PUBLISHED_LABELS;
  if (Object.keys(spec).length === 0 && !labels) return undefined;
  return { ...(labels && { metadata: { labels } }), ...(Object.keys(spec).length > 0 && { spec }) };
}

// ── removal guard ──────────────────────────────────────────────────────────────────────────

export interface RemovalBlock {
  reason: string;
  message: string;
}

/** Why Ready clusters forbid removing `location`'s objects, or undefined when nothing does. */
export function removalGuard(location: string, clusters: Cluster[]): RemovalBlock | undefined {
  const ready = clusters.filter((cluster) =>
    isConditionTrue(cluster.status?.conditions, ClusterConditionType.Ready),
  );
  const names = (list: Cluster[]) => list.map((cluster) => cluster.metadata.name!);
  const serving = ready.filter((cluster) => cluster.metadata.labels?.[CLUSTER_LOCATION_LABEL] === location);
  if (serving.length > 0)
    return {
      reason: RemovalBlockedReason.ClustersStillServing,
      message: removalBlockedMessages.clustersStillServing(names(serving)),
    };
  const unlabelled = ready.filter((cluster) => !cluster.metadata.labels?.[CLUSTER_LOCATION_LABEL]);
  if (unlabelled.length > 0)
    return {
      reason: RemovalBlockedReason.FleetNotFullyLabelled,
      message: removalBlockedMessages.fleetNotFullyLabelled(names(unlabelled)),
    };
  return undefined;
}
