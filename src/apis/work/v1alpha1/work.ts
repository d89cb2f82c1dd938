/**
 * Work (propagation.md §4.3): one per (binding, cluster), in the cluster's execution space
 * `karmada-es-<cluster>` on the hub; it holds the one manifest the engine applies to the member.
 * Also the keys the engine writes on member copies (§5.1).
 *
 * Guarantees: `workName` is Karmada's name for the Work of a template — the name with `:` as
 * `.`, lower-cased, `-`, and the FNV-1a 32 hash of `<namespace>-<name>-<kind>` (or
 * `<name>-<kind>`) in decimal with each digit d written as `456789bcdf`[d] — so an
 * operator finds the same Work under Karmada and under the engine.
 *
 * Example: a Deployment `nginx` in `default` → key `default-nginx-deployment` → `nginx-687f7fb96f`.
 */
import { Type } from '@sinclair/typebox';
import { Conditions } from '../../common/condition.ts';
import { ageColumn, conditionStatusColumn, defineKind, fieldColumn } from '../../common/kind.ts';
import type { TypedObject } from '../../common/meta.ts';
import { PRESERVE_UNKNOWN } from '../../common/schema.ts';
import { WORK_GROUP } from '../v1alpha2/binding-spec.ts';

export const WORK_VERSION = 'v1alpha1';

export const WorkConditionType = { Applied: 'Applied' } as const;
export const WorkReason = { AppliedSuccessful: 'AppliedSuccessful', AppliedFailed: 'AppliedFailed' } as const;

export const workMessages = {
  applied: 'Manifest has been successfully applied',
  notApplied: (error: string) => `Failed to apply all manifests (0/1): ${error}`,
};

export const WORK_FINALIZER = 'karmada.io/execution-controller';

/** Labels and annotations of Works and of the member copies made from them. */
export const WORK_PERMANENT_ID_LABEL = 'work.karmada.io/permanent-id';
export const MANAGED_LABEL = 'karmada.io/managed';
export const WORK_NAME_ANNOTATION = 'work.karmada.io/name';
export const WORK_NAMESPACE_ANNOTATION = 'work.karmada.io/namespace';
export const TEMPLATE_GENERATION_ANNOTATION = 'resourcetemplate.karmada.io/generation';
export const TEMPLATE_UID_ANNOTATION = 'resourcetemplate.karmada.io/uid';
export const MANAGED_ANNOTATIONS_ANNOTATION = 'resourcetemplate.karmada.io/managed-annotations';
export const MANAGED_LABELS_ANNOTATION = 'resourcetemplate.karmada.io/managed-labels';

const EXECUTION_SPACE_PREFIX = 'karmada-es-';

/** The hub namespace holding a cluster's Works. */
export function executionSpaceName(cluster: string): string {
  return `${EXECUTION_SPACE_PREFIX}${cluster}`;
}

const DIGITS = '456789bcdf';

/** The Work of a template (namespace absent for a cluster-scoped one, and for namespace Works). */
export function workName(kind: string, name: string, namespace?: string): string {
  const base = name.replaceAll(':', '.').toLowerCase();
  const key = (namespace ? `${namespace}-${base}-${kind}` : `${base}-${kind}`).toLowerCase();
  const hash = String(fnv1a32(key)).replace(/\d/g, (digit) => DIGITS[Number(digit)]);
  return `${base}-${hash}`;
}

function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export const WorkSpec = Type.Object(
  {
    workload: Type.Optional(
      Type.Object({
        manifests: Type.Optional(
          Type.Array(
            Type.Object({}, { ...PRESERVE_UNKNOWN, description: 'A resource to apply on the member.' }),
          ),
        ),
      }),
    ),
    preserveResourcesOnDeletion: Type.Optional(Type.Boolean()),
    suspendDispatching: Type.Optional(Type.Boolean()),
  },
  PRESERVE_UNKNOWN,
);

export const WorkStatus = Type.Object({ conditions: Type.Optional(Conditions()) }, PRESERVE_UNKNOWN);

export const WorkSchema = Type.Object(
  { spec: Type.Optional(WorkSpec), status: Type.Optional(WorkStatus) },
  { description: 'The manifest the propagation engine applies to one member cluster.' },
);
export type Work = TypedObject<typeof WorkSchema>;

export const workKind = defineKind({
  group: WORK_GROUP,
  version: WORK_VERSION,
  kind: 'Work',
  plural: 'works',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [
    fieldColumn('WORKLOAD-KIND', '.spec.workload.manifests[*].kind'),
    conditionStatusColumn('APPLIED', 'Applied'),
    ageColumn('AGE'),
  ],
  schema: WorkSchema,
});
