/**
 * The retain merge and the no-op comparison (propagation.md §5.3): how a Work's manifest and
 * the copy a member holds combine into the object the engine writes, and when nothing need be
 * written at all.
 *
 * Guarantees (`retained(manifest, observed)`), in the spec's order:
 * 1. `metadata.resourceVersion` is the observed one;
 * 2. `metadata.finalizers` and 3. `metadata.ownerReferences` are the observed ones, wholesale —
 *    the hub never adds or removes a member finalizer or ownerReference;
 * 4. labels are the manifest's, plus every observed label whose key the manifest lacks and the
 *    observed `resourcetemplate.karmada.io/managed-labels` does not list (so keys the engine
 *    wrote earlier and writes no more disappear, and keys added on the member survive);
 * 5. annotations likewise, against the observed `managed-annotations`;
 * 6. every other field, `spec` included, is the manifest's; `status` is never part of it.
 * Neither argument is mutated. The result's top level and `metadata` are its own; below them it
 * shares the values of its arguments (strip.ts says why): it is written or compared, never changed.
 *
 * `isNoOp(desired, observed)` compares the desired object with the observed one after running
 * the observed one through the strip list and the same retain steps against itself, so member
 * status, uid, timestamps, managedFields, finalizers and ownerReferences never cause a write.
 * An empty label or annotation map, finalizer or ownerReference list equals an absent one, and
 * object key order never matters.
 *
 * Example: manifest labels {app: web, karmada.io/managed: "true"}; observed labels {app: old,
 * local: "1", gone: x} with managed-labels `app,gone,karmada.io/managed` → desired labels
 * {app: web, karmada.io/managed: "true", local: "1"} — `gone` was the engine's and is dropped.
 */
import { jsonEqual } from '../../apis/common/json-equal.ts';
import { MANAGED_ANNOTATIONS_ANNOTATION, MANAGED_LABELS_ANNOTATION } from '../../apis/work/v1alpha1/work.ts';
import type { KubeObject } from '../../client/types.ts';
import { stripped } from './strip.ts';

type StringMap = Record<string, string>;

/** The keys a managed-keys annotation lists (comma-separated; empty entries ignored). */
export function listedKeys(list: string | undefined): Set<string> {
  return new Set((list ?? '').split(',').filter((key) => key !== ''));
}

function mergedKeys(
  manifest: StringMap | undefined,
  observed: StringMap | undefined,
  managed: Set<string>,
): StringMap | undefined {
  const merged: StringMap = { ...manifest };
  for (const [key, value] of Object.entries(observed ?? {}))
    if (!(key in merged) && !managed.has(key)) merged[key] = value;
  return Object.keys(merged).length > 0 ? merged : undefined;
}

function setOrDelete(target: Record<string, unknown>, field: string, value: unknown): void {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) delete target[field];
  else target[field] = value;
}

export function retained<T extends KubeObject>(manifest: KubeObject, observed: KubeObject): T {
  const desired = { ...manifest, metadata: { ...manifest.metadata } } as T;
  delete desired.status;
  const meta = desired.metadata as Record<string, unknown>;
  const seen = observed.metadata;
  setOrDelete(meta, 'resourceVersion', seen.resourceVersion);
  setOrDelete(meta, 'finalizers', seen.finalizers && [...seen.finalizers]);
  setOrDelete(meta, 'ownerReferences', seen.ownerReferences && structuredClone(seen.ownerReferences));
  const observedAnnotations = seen.annotations;
  setOrDelete(
    meta,
    'labels',
    mergedKeys(
      manifest.metadata.labels,
      seen.labels,
      listedKeys(observedAnnotations?.[MANAGED_LABELS_ANNOTATION]),
    ),
  );
  setOrDelete(
    meta,
    'annotations',
    mergedKeys(
      manifest.metadata.annotations,
      observedAnnotations,
      listedKeys(observedAnnotations?.[MANAGED_ANNOTATIONS_ANNOTATION]),
    ),
  );
  return desired;
}

/** The observed copy as the comparison sees it: stripped, then retained against itself. */
export function comparable(observed: KubeObject): KubeObject {
  return retained(stripped(observed), observed);
}

export function isNoOp(desired: KubeObject, observed: KubeObject): boolean {
  return jsonEqual(withoutEmptyMetadata(desired), withoutEmptyMetadata(comparable(observed)));
}

const OPTIONAL_METADATA = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

/** An empty label map or finalizer list means the same as an absent one. */
function withoutEmptyMetadata(object: KubeObject): KubeObject {
  const metadata: Record<string, unknown> = { ...object.metadata };
  for (const field of OPTIONAL_METADATA) {
    const value = metadata[field];
    if (value !== undefined && Object.keys(value as object).length === 0) delete metadata[field];
  }
  return { ...object, metadata };
}
