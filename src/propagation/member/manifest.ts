/**
 * The one manifest a Work holds (propagation.md §4.3): `spec.workload.manifests[0]`.
 *
 * Guarantees: `manifestOf` answers undefined for a Work without a manifest or with one that
 * names no apiVersion, kind or name, so no caller writes a malformed object to a member.
 */
import type { Work } from '../../apis/work/v1alpha1/work.ts';
import type { KubeObject } from '../../client/types.ts';

export const NO_MANIFEST = 'the Work holds no manifest with an apiVersion, a kind and a name';

export function manifestOf(work: Work): KubeObject | undefined {
  const manifest = work.spec?.workload?.manifests?.[0] as KubeObject | undefined;
  if (!manifest?.apiVersion || !manifest.kind || !manifest.metadata?.name) return undefined;
  return manifest;
}
