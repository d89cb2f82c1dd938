/**
 * Conflict resolution on the member (propagation.md §5.3, §5.4): whether the engine may write an
 * object that already exists on a member, and the refusal it reports when it may not.
 *
 * Guarantees: a managed object (`karmada.io/managed=true`) may always be written; an unmanaged
 * one only when the manifest's `work.karmada.io/conflict-resolution` is exactly `overwrite`
 * (adoption). Otherwise `AbortError` says which object, which cluster, and what to change: the
 * policy is named from the manifest's claim keys — a complete PP claim first, then a complete
 * CPP claim, else "the policy that claims the template".
 */
import { CONFLICT_RESOLUTION_ANNOTATION } from '../../apis/policy/v1alpha1/template-keys.ts';
import { MANAGED_LABEL } from '../../apis/work/v1alpha1/work.ts';
import type { KubeObject } from '../../client/types.ts';
import { claimOf } from '../policy-claim.ts';

export const OVERWRITE = 'overwrite';
export const UNNAMED_POLICY = 'the policy that claims the template';

export const abortMessage = (
  kind: string,
  namespace: string,
  name: string,
  cluster: string,
  policy: string,
) =>
  `resource(kind=${kind}, ${namespace}/${name}) already exists in the cluster ${cluster} and is not managed ` +
  `(it lacks ${MANAGED_LABEL}=true); conflict resolution is abort, so it is left untouched. To adopt it, ` +
  `set spec.conflictResolution: Overwrite on ${policy}, or annotate the template with ` +
  `${CONFLICT_RESOLUTION_ANNOTATION}=${OVERWRITE}.`;

/** An existing unmanaged object the manifest may not adopt. */
export class AbortError extends Error {
  constructor(manifest: KubeObject, cluster: string) {
    const { namespace, name } = manifest.metadata;
    super(abortMessage(manifest.kind ?? '', namespace ?? '', name ?? '', cluster, claimingPolicy(manifest)));
    this.name = 'AbortError';
  }
}

export function isManaged(object: KubeObject): boolean {
  return object.metadata.labels?.[MANAGED_LABEL] === 'true';
}

export function mayWrite(observed: KubeObject, manifest: KubeObject): boolean {
  return isManaged(observed) || manifest.metadata.annotations?.[CONFLICT_RESOLUTION_ANNOTATION] === OVERWRITE;
}

/** `PropagationPolicy <name>`, `ClusterPropagationPolicy <name>`, or the unclaimed wording. */
export function claimingPolicy(manifest: KubeObject): string {
  const claim = claimOf(manifest);
  return claim ? `${claim.tier} ${claim.name}` : UNNAMED_POLICY;
}
