/**
 * The manifest of a Work (propagation.md §5.1, §5.4): the live template with the strip list
 * removed (member/strip.ts, the same one the member side compares observed copies through) and
 * the binding's and Work's keys added, and the conflict resolution the member side applies it
 * with.
 *
 * Guarantees: the template object is never mutated; apiVersion, kind, name, namespace, every
 * template label and annotation (claim keys included), `spec` and every other top-level field
 * are kept; the generation annotation is written only for a generation above 0; both
 * managed-keys lists are computed last, over the final manifest, sorted bytewise (the
 * managed-annotations list names itself and the managed-labels key).
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
} from '../apis/work/v1alpha1/work.ts';
import { CONFLICT_RESOLUTION_ANNOTATION } from '../apis/policy/v1alpha1/template-keys.ts';
import {
  CRB_NAME_ANNOTATION,
  CRB_PERMANENT_ID_LABEL,
} from '../apis/work/v1alpha2/cluster-resource-binding.ts';
import {
  RB_NAME_ANNOTATION,
  RB_NAMESPACE_ANNOTATION,
  RB_PERMANENT_ID_LABEL,
} from '../apis/work/v1alpha2/resource-binding.ts';
import type { KubeObject } from '../client/types.ts';
import { stripped } from './member/strip.ts';

export type ConflictResolutionValue = 'overwrite' | 'abort';

/** Logged when a template's conflict-resolution annotation is neither `overwrite` nor `abort`. */
export const invalidConflictResolution = (value: string, template: string): string =>
  `template ${template} has annotation ${CONFLICT_RESOLUTION_ANNOTATION}=${JSON.stringify(value)}, which is ` +
  `neither "overwrite" nor "abort"; it is ignored and the policy's conflictResolution decides`;

/** §5.4: the template's exact `overwrite`/`abort`, else the binding's, else `abort`. */
export function conflictResolutionOf(
  template: KubeObject,
  bindingValue: string | undefined,
  warn: (message: string) => void,
): ConflictResolutionValue {
  const annotated = template.metadata.annotations?.[CONFLICT_RESOLUTION_ANNOTATION];
  if (annotated === 'overwrite' || annotated === 'abort') return annotated;
  if (annotated !== undefined) warn(invalidConflictResolution(annotated, describe(template)));
  return bindingValue === 'Overwrite' ? 'overwrite' : 'abort';
}

export interface ManifestBinding {
  cluster: boolean; // a CRB
  namespace?: string;
  name: string;
  id: string;
}

export interface ManifestWork {
  namespace: string;
  name: string;
  id: string;
}

export function buildManifest(
  template: KubeObject,
  binding: ManifestBinding,
  work: ManifestWork,
  conflictResolution: ConflictResolutionValue,
): KubeObject {
  const manifest = stripped(template);
  const labels: Record<string, string> = { ...manifest.metadata.labels };
  const annotations: Record<string, string> = { ...manifest.metadata.annotations };
  if (binding.cluster) {
    labels[CRB_PERMANENT_ID_LABEL] = binding.id;
    annotations[CRB_NAME_ANNOTATION] = binding.name;
  } else {
    labels[RB_PERMANENT_ID_LABEL] = binding.id;
    annotations[RB_NAMESPACE_ANNOTATION] = binding.namespace ?? '';
    annotations[RB_NAME_ANNOTATION] = binding.name;
  }
  labels[MANAGED_LABEL] = 'true';
  labels[WORK_PERMANENT_ID_LABEL] = work.id;
  const generation = template.metadata.generation ?? 0;
  if (generation > 0) annotations[TEMPLATE_GENERATION_ANNOTATION] = String(generation);
  if (template.metadata.uid) annotations[TEMPLATE_UID_ANNOTATION] = template.metadata.uid;
  annotations[WORK_NAME_ANNOTATION] = work.name;
  annotations[WORK_NAMESPACE_ANNOTATION] = work.namespace;
  annotations[CONFLICT_RESOLUTION_ANNOTATION] = conflictResolution;
  annotations[MANAGED_ANNOTATIONS_ANNOTATION] = '';
  annotations[MANAGED_LABELS_ANNOTATION] = bytewiseKeys(labels);
  annotations[MANAGED_ANNOTATIONS_ANNOTATION] = bytewiseKeys(annotations);
  manifest.metadata.labels = labels;
  manifest.metadata.annotations = annotations;
  return manifest;
}

/** The keys of `map`, sorted bytewise (by their UTF-8 bytes, as Go sorts strings), joined with `,`. */
export function bytewiseKeys(map: Record<string, string>): string {
  const keys = Object.keys(map);
  return (keys.some(outsideUtf16Order) ? keys.sort(byUtf8) : keys.sort()).join(',');
}

/**
 * UTF-8's byte order is code point order, which JavaScript's own (by UTF-16 code unit) matches
 * except where a surrogate (U+D800–U+DFFF, half of a character above U+FFFF) meets U+E000–U+FFFF;
 * only keys holding such units need their bytes compared (label and annotation keys never do).
 */
const outsideUtf16Order = (key: string): boolean => /[\uD800-\uFFFF]/.test(key);

const byUtf8 = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

function describe(template: KubeObject): string {
  const { namespace, name } = template.metadata;
  return `${template.kind} ${namespace ? `${namespace}/` : ''}${name}`;
}

/**
 * The manifest another Work of the same binding holds, re-addressed to `work` — for a new
 * cluster of a binding whose template has changed since the binding last recorded it (§2.8: the
 * change does not reach the binding's Works, new ones included, until a policy claims it again).
 */
export function readdressedManifest(manifest: KubeObject, work: ManifestWork): KubeObject {
  const next = structuredClone(manifest);
  const labels = { ...next.metadata.labels, [WORK_PERMANENT_ID_LABEL]: work.id };
  const annotations: Record<string, string> = {
    ...next.metadata.annotations,
    [WORK_NAME_ANNOTATION]: work.name,
    [WORK_NAMESPACE_ANNOTATION]: work.namespace,
  };
  annotations[MANAGED_LABELS_ANNOTATION] = bytewiseKeys(labels);
  annotations[MANAGED_ANNOTATIONS_ANNOTATION] = bytewiseKeys(annotations);
  next.metadata.labels = labels;
  next.metadata.annotations = annotations;
  return next;
}
