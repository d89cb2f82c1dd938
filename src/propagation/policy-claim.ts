/**
 * Claim metadata (propagation.md §2.2, §2.4): the labels and annotations on a template — and on
 * its binding — that name the policy propagating it.
 *
 * Guarantees: `claimOf` reads a claim only when it is complete (a PP claim is checked first); the
 * patches it builds change claim keys only: writing a PP claim removes every CPP claim key,
 * writing a CPP claim leaves PP keys alone, and removing a claim removes the keys of its tier
 * (`claimKeys`, the one list of them the member side strips from preserved copies too).
 * Values are compared exactly; an empty value is no claim.
 */
import {
  CPP_NAME_ANNOTATION,
  CPP_PERMANENT_ID_LABEL,
} from '../apis/policy/v1alpha1/cluster-propagation-policy.ts';
import {
  PP_NAME_ANNOTATION,
  PP_NAMESPACE_ANNOTATION,
  PP_PERMANENT_ID_LABEL,
} from '../apis/policy/v1alpha1/propagation-policy.ts';
import type { KubeObject } from '../client/types.ts';

export type PolicyTier = 'PropagationPolicy' | 'ClusterPropagationPolicy';

/** A complete claim: which policy (by tier, namespace, name) and the permanent-id it was made with. */
export interface Claim {
  tier: PolicyTier;
  namespace?: string;
  name: string;
  id: string;
}

export function claimOf(object: KubeObject): Claim | undefined {
  const labels = object.metadata.labels ?? {};
  const annotations = object.metadata.annotations ?? {};
  const ppId = labels[PP_PERMANENT_ID_LABEL];
  const ppNamespace = annotations[PP_NAMESPACE_ANNOTATION];
  const ppName = annotations[PP_NAME_ANNOTATION];
  if (ppId && ppNamespace && ppName)
    return { tier: 'PropagationPolicy', namespace: ppNamespace, name: ppName, id: ppId };
  const cppId = labels[CPP_PERMANENT_ID_LABEL];
  const cppName = annotations[CPP_NAME_ANNOTATION];
  if (cppId && cppName) return { tier: 'ClusterPropagationPolicy', name: cppName, id: cppId };
  return undefined;
}

/** Label and annotation patches (value, or null to remove) for metadata. */
export interface MetadataPatch {
  labels: Record<string, string | null>;
  annotations: Record<string, string | null>;
}

/** The claim keys a claim by `claim` writes (PP claims also drop the CPP keys). */
export function claimPatch(claim: Claim): MetadataPatch {
  if (claim.tier === 'PropagationPolicy')
    return {
      labels: { [PP_PERMANENT_ID_LABEL]: claim.id, [CPP_PERMANENT_ID_LABEL]: null },
      annotations: {
        [PP_NAMESPACE_ANNOTATION]: claim.namespace ?? '',
        [PP_NAME_ANNOTATION]: claim.name,
        [CPP_NAME_ANNOTATION]: null,
      },
    };
  return {
    labels: { [CPP_PERMANENT_ID_LABEL]: claim.id },
    annotations: { [CPP_NAME_ANNOTATION]: claim.name },
  };
}

/** The label and annotation keys of a `tier` claim. */
export function claimKeys(tier: PolicyTier): { labels: string[]; annotations: string[] } {
  return tier === 'PropagationPolicy'
    ? { labels: [PP_PERMANENT_ID_LABEL], annotations: [PP_NAMESPACE_ANNOTATION, PP_NAME_ANNOTATION] }
    : { labels: [CPP_PERMANENT_ID_LABEL], annotations: [CPP_NAME_ANNOTATION] };
}

/** Removes the claim keys of `tier`. */
export function unclaimPatch(tier: PolicyTier): MetadataPatch {
  const keys = claimKeys(tier);
  const removal = (list: string[]) => Object.fromEntries(list.map((key) => [key, null]));
  return { labels: removal(keys.labels), annotations: removal(keys.annotations) };
}

/** The permanent-id label key of a tier. */
export function claimIdLabel(tier: PolicyTier): string {
  return tier === 'PropagationPolicy' ? PP_PERMANENT_ID_LABEL : CPP_PERMANENT_ID_LABEL;
}

/** `map` with `patch` applied (null removes). */
export function patched(
  map: Record<string, string> | undefined,
  patch: Record<string, string | null>,
): Record<string, string> {
  const next = { ...map };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/** The part of `patch` that would change `object`; undefined when nothing would. */
export function effectivePatch(object: KubeObject, patch: MetadataPatch): MetadataPatch | undefined {
  const labels = changedKeys(object.metadata.labels, patch.labels);
  const annotations = changedKeys(object.metadata.annotations, patch.annotations);
  if (Object.keys(labels).length === 0 && Object.keys(annotations).length === 0) return undefined;
  return { labels, annotations };
}

function changedKeys(
  held: Record<string, string> | undefined,
  patch: Record<string, string | null>,
): Record<string, string | null> {
  const current = held ?? {};
  return Object.fromEntries(
    Object.entries(patch).filter(([key, value]) =>
      value === null ? key in current : current[key] !== value,
    ),
  );
}
