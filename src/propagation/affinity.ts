/**
 * The affinity filter (propagation.md §3.1): whether a Cluster passes a `clusterAffinity` or one
 * `clusterAffinities` term — exclude, then labelSelector, then fieldSelector, then clusterNames.
 *
 * Guarantees: field keys `provider` and `region` compare with `spec.provider`/`spec.region` as
 * node selector requirements do (an empty field counts as absent; `NotIn` and `DoesNotExist`
 * hold when it is absent; `Gt`/`Lt` compare integers; an invalid entry fails); `zone` compares
 * with `spec.zones` (`In`: any zone listed; `NotIn`: none listed; `Exists`: some zone;
 * `DoesNotExist`: none; any other operator fails); any other key is an absent field.
 */
import type { Cluster } from '../apis/cluster/v1alpha1/cluster.ts';
import type { LabelSelector } from '../apis/common/label-selector.ts';
import { matchesLabelSelector } from './label-selector-match.ts';

export interface FieldRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface AffinityTerm {
  labelSelector?: LabelSelector;
  fieldSelector?: { matchExpressions?: FieldRequirement[] };
  clusterNames?: string[];
  exclude?: string[];
}

export function passesAffinity(cluster: Cluster, term: AffinityTerm | undefined): boolean {
  if (!term) return true;
  const name = cluster.metadata.name!;
  if (term.exclude?.includes(name)) return false;
  if (term.labelSelector && !matchesLabelSelector(term.labelSelector, cluster.metadata.labels)) return false;
  for (const requirement of term.fieldSelector?.matchExpressions ?? [])
    if (!holds(requirement, cluster)) return false;
  if (term.clusterNames && term.clusterNames.length > 0 && !term.clusterNames.includes(name)) return false;
  return true;
}

function holds(requirement: FieldRequirement, cluster: Cluster): boolean {
  const spec = cluster.spec ?? {};
  switch (requirement.key) {
    case 'provider':
      return nodeRequirementHolds(requirement, spec.provider || undefined);
    case 'region':
      return nodeRequirementHolds(requirement, spec.region || undefined);
    case 'zone':
      return zoneRequirementHolds(requirement, spec.zones ?? []);
    default:
      return nodeRequirementHolds(requirement, undefined);
  }
}

/** A node selector requirement on one (possibly absent) value. */
function nodeRequirementHolds(requirement: FieldRequirement, value: string | undefined): boolean {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return values.length > 0 && value !== undefined && values.includes(value);
    case 'NotIn':
      return values.length > 0 && (value === undefined || !values.includes(value));
    case 'Exists':
      return values.length === 0 && value !== undefined;
    case 'DoesNotExist':
      return values.length === 0 && value === undefined;
    case 'Gt':
    case 'Lt': {
      if (values.length !== 1 || value === undefined) return false;
      const bound = integer(values[0]);
      const actual = integer(value);
      if (bound === undefined || actual === undefined) return false;
      return requirement.operator === 'Gt' ? actual > bound : actual < bound;
    }
    default:
      return false;
  }
}

function zoneRequirementHolds(requirement: FieldRequirement, zones: string[]): boolean {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return zones.some((zone) => values.includes(zone));
    case 'NotIn':
      return !zones.some((zone) => values.includes(zone));
    case 'Exists':
      return zones.length > 0;
    case 'DoesNotExist':
      return zones.length === 0;
    default:
      return false;
  }
}

function integer(text: string): number | undefined {
  return /^-?\d+$/.test(text) ? Number(text) : undefined;
}
