/**
 * The strip list (propagation.md §5.1): what a hub object loses before it may stand for a member
 * copy. The hub side builds manifests with it; the member side runs every observed copy through
 * it before comparing (§5.3), so fields only a server writes never cause a write.
 *
 * Guarantees: `stripped` returns a new object and never mutates its argument; it removes the
 * server-written metadata (creation and deletion timestamps, deletion grace, generation,
 * managedFields, resourceVersion, selfLink, uid), ownerReferences, finalizers and the whole
 * `status`, and the extras Karmada prunes on the native kinds it names: a non-headless Service's
 * `clusterIP`/`clusterIPs`, a Job's generated selector and template labels and
 * `ttlSecondsAfterFinished`, a Deployment's revision annotation, a ServiceAccount's token
 * secrets, a service-account-token Secret's data and a PVC's selected-node annotation. Every
 * other field is kept verbatim. netpresence's own kinds have no extras.
 * The result's top level and `metadata` are its own; below them it shares the argument's values
 * (a deep copy of every template, for every Work built and every copy compared, was about a
 * tenth of the propagation controllers' own work in a burst), except for a kind with extras,
 * which is copied whole before they remove what they remove. Callers never mutate below the top
 * level and `metadata`: the rule of the informer stores these objects come from.
 */
import type { KubeObject } from '../../client/types.ts';

const SERVER_METADATA = [
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'managedFields',
  'resourceVersion',
  'selfLink',
  'uid',
  'ownerReferences',
  'finalizers',
] as const;

const DEPLOYMENT_REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
const PVC_SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node';
const JOB_GENERATED_LABELS = [
  'controller-uid',
  'batch.kubernetes.io/controller-uid',
  'job-name',
  'batch.kubernetes.io/job-name',
];
const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';

type Fields = Record<string, unknown>;
type Extra = (object: Fields) => void;

/** `value` as an object whose fields can be read and deleted, or undefined when it is none. */
function fieldsOf(value: unknown): Fields | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;
}

/** Karmada's per-kind pruning, keyed by `<group>/<kind>` (core group empty). */
const NATIVE_EXTRAS: Partial<Record<string, Extra>> = {
  '/Service': (service) => {
    const spec = fieldsOf(service.spec);
    if (!spec || spec.clusterIP === 'None') return;
    delete spec.clusterIP;
    delete spec.clusterIPs;
  },
  'batch/Job': (job) => {
    const spec = fieldsOf(job.spec);
    if (!spec) return;
    delete spec.ttlSecondsAfterFinished;
    if (spec.manualSelector !== true) {
      delete spec.selector;
      const labels = fieldsOf(fieldsOf(fieldsOf(spec.template)?.metadata)?.labels);
      if (labels) for (const key of JOB_GENERATED_LABELS) delete labels[key];
    }
  },
  'apps/Deployment': (deployment) => {
    const annotations = fieldsOf(fieldsOf(deployment.metadata)?.annotations);
    if (annotations) delete annotations[DEPLOYMENT_REVISION_ANNOTATION];
  },
  '/ServiceAccount': (account) => {
    delete account.secrets;
  },
  '/Secret': (secret) => {
    if (secret.type === SERVICE_ACCOUNT_TOKEN_TYPE) delete secret.data;
  },
  '/PersistentVolumeClaim': (claim) => {
    const annotations = fieldsOf(fieldsOf(claim.metadata)?.annotations);
    if (annotations) delete annotations[PVC_SELECTED_NODE_ANNOTATION];
  },
};

function groupOf(apiVersion: string | undefined): string {
  const slash = apiVersion?.indexOf('/') ?? -1;
  return slash < 0 ? '' : apiVersion!.slice(0, slash);
}

export function stripped<T extends KubeObject>(object: T): T {
  const extra = NATIVE_EXTRAS[`${groupOf(object.apiVersion)}/${object.kind ?? ''}`];
  // Copy only what is kept: the status and the server's metadata are left out before the deep
  // copy an extra needs rather than copied and deleted.
  const copy: T & Fields = extra ? structuredClone(withoutServerFields(object)) : withoutServerFields(object);
  extra?.(copy);
  if (copy.metadata.annotations && Object.keys(copy.metadata.annotations).length === 0)
    delete copy.metadata.annotations;
  return copy;
}

/** A shallow copy of `object` without `status` and without the server's metadata fields. */
function withoutServerFields<T extends KubeObject>(object: T): T {
  const { status: _status, ...rest } = object as T & Fields;
  const metadata: Fields = { ...object.metadata };
  for (const field of SERVER_METADATA) delete metadata[field];
  return { ...rest, metadata } as T;
}
