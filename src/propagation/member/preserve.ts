/**
 * preserveResourcesOnDeletion (propagation.md §7.4): the manifest a preserved copy is written
 * from once, so that the retain merge drops every key that tied it to the engine.
 *
 * Guarantees: `preservedManifest` removes the managed label, the binding's and the Work's
 * permanent-id labels, the managed-keys lists, the binding, uid, generation and Work-name
 * annotations, and the PP claim keys of a namespaced object or the CPP claim keys of a
 * cluster-scoped one. What survives: a namespaced object's CPP claim, a cluster-scoped object's
 * `clusterresourcebinding.karmada.io/permanent-id` and `clusterresourcebinding.karmada.io/name`,
 * and `work.karmada.io/conflict-resolution` on every object. Since every removed key is listed
 * in the copy's managed-keys annotations, the merge drops it from the copy, which is unmanaged
 * from then on. The argument is not mutated.
 */
import {
  MANAGED_ANNOTATIONS_ANNOTATION,
  MANAGED_LABEL,
  MANAGED_LABELS_ANNOTATION,
  TEMPLATE_GENERATION_ANNOTATION,
  TEMPLATE_UID_ANNOTATION,
  WORK_NAME_ANNOTATION,
  WORK_NAMESPACE_ANNOTATION,
  WORK_PERMANENT_ID_LABEL,
} from '../../apis/work/v1alpha1/work.ts';
import {
  RB_NAME_ANNOTATION,
  RB_NAMESPACE_ANNOTATION,
  RB_PERMANENT_ID_LABEL,
} from '../../apis/work/v1alpha2/resource-binding.ts';
import type { KubeObject } from '../../client/types.ts';
import { claimKeys } from '../policy-claim.ts';

const ENGINE_LABELS = [MANAGED_LABEL, RB_PERMANENT_ID_LABEL, WORK_PERMANENT_ID_LABEL];
const ENGINE_ANNOTATIONS = [
  MANAGED_ANNOTATIONS_ANNOTATION,
  MANAGED_LABELS_ANNOTATION,
  RB_NAMESPACE_ANNOTATION,
  RB_NAME_ANNOTATION,
  TEMPLATE_UID_ANNOTATION,
  TEMPLATE_GENERATION_ANNOTATION,
  WORK_NAME_ANNOTATION,
  WORK_NAMESPACE_ANNOTATION,
];

export function preservedManifest(manifest: KubeObject): KubeObject {
  const preserved = structuredClone(manifest);
  const claim = claimKeys(manifest.metadata.namespace ? 'PropagationPolicy' : 'ClusterPropagationPolicy');
  const labels = preserved.metadata.labels ?? {};
  const annotations = preserved.metadata.annotations ?? {};
  for (const key of [...ENGINE_LABELS, ...claim.labels]) delete labels[key];
  for (const key of [...ENGINE_ANNOTATIONS, ...claim.annotations]) delete annotations[key];
  return preserved;
}
