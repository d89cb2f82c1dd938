/**
 * Binding sync (propagation.md §4.3, §4.5, §7.1, §7.2): keeps one Work per cluster of each
 * binding's `spec.clusters`, holding the manifest of the live template, and deletes the Works of
 * clusters no longer listed; deletes a binding whose template is gone, and lets a deleted binding
 * go once its Works are deleted.
 *
 * Guarantees:
 * - Works are found by the binding's permanent-id label, never by listing the API server;
 * - a Work is written only when its labels, annotations or spec differ from the desired ones, and
 *   is created with the finalizer `karmada.io/execution-controller`; a Work being deleted is never
 *   rewritten: its replacement is created once it is gone;
 * - manifests are rebuilt from the live template only while it is the version the binding
 *   records (`spec.resource.resourceVersion`), so a template change reaches Works exactly when
 *   the detector has carried it to the binding — never for a binding whose claim was lost; a
 *   new cluster of such a binding gets the manifest its other Works hold; a binding's first
 *   Works wait while the template store has not shown the claim write the binding was made
 *   from, and that template's event wakes it (so a copy never goes out without its claim keys,
 *   to be rewritten a moment later);
 * - a binding whose template no longer exists, or exists with another uid, is deleted; a deleted
 *   binding's Works are deleted and its finalizer removed without waiting for any member.
 */
import { randomUUID } from 'node:crypto';
import { jsonEqual } from '../apis/common/json-equal.ts';
import {
  executionSpaceName,
  WORK_FINALIZER,
  WORK_PERMANENT_ID_LABEL,
  workName,
  type Work,
} from '../apis/work/v1alpha1/work.ts';
import { CONFLICT_RESOLUTION_ANNOTATION } from '../apis/policy/v1alpha1/template-keys.ts';
import {
  CRB_FINALIZER,
  CRB_NAME_ANNOTATION,
  CRB_PERMANENT_ID_LABEL,
} from '../apis/work/v1alpha2/cluster-resource-binding.ts';
import {
  RB_FINALIZER,
  RB_NAME_ANNOTATION,
  RB_NAMESPACE_ANNOTATION,
  RB_PERMANENT_ID_LABEL,
} from '../apis/work/v1alpha2/resource-binding.ts';
import { isAlreadyExists, isNotFound } from '../client/errors.ts';
import type { KubeObject } from '../client/types.ts';
import type { ControllerDefinition } from '../runtime/manager-context.ts';
import { type Controller, done, type Outcome } from '../runtime/controller.ts';
import type { InformerEvent } from '../runtime/informer-contract.ts';
import type { Logger } from '../runtime/logging.ts';
import { watches } from '../runtime/triggers.ts';
import type { EngineContext } from './engine-context.ts';
import { bindingController } from './engine-controller.ts';
import { hubView, type Binding, type HubView } from './hub-view.ts';
import {
  bindingKeyOf,
  bindingKeyOfTemplate,
  templateKeyOf,
  templateKeyOfBinding,
  type BindingKey,
} from './keys.ts';
import { buildManifest, conflictResolutionOf, readdressedManifest } from './manifest.ts';
import { claimOf } from './policy-claim.ts';
import { BY_BINDING_ID } from './resources.ts';

export const name = 'propagation-binding-sync';

const EXECUTION_SPACE_PREFIX = executionSpaceName('');

export function bindingIdLabel(kind: BindingKey['kind']): string {
  return kind === 'ResourceBinding' ? RB_PERMANENT_ID_LABEL : CRB_PERMANENT_ID_LABEL;
}

function bindingFinalizer(kind: BindingKey['kind']): string {
  return kind === 'ResourceBinding' ? RB_FINALIZER : CRB_FINALIZER;
}

/** The live Works of a binding, and those being deleted. */
export function worksOf(binding: Binding, kind: BindingKey['kind'], view: HubView): Work[] {
  const id = binding.metadata.labels?.[bindingIdLabel(kind)];
  return id ? view.works.store.byIndex(BY_BINDING_ID, id) : [];
}

export function clusterOfWork(work: Work): string {
  return (work.metadata.namespace ?? '').slice(EXECUTION_SPACE_PREFIX.length);
}

/** What deleting a Work needs of it: its name, namespace and uid (the delete's precondition). */
type WorkRef = Pick<Work, 'metadata'>;

/**
 * Works this process created that its informer had not shown yet, by view and binding uid. A
 * deleted binding's release deletes them too: a Work created a moment before its binding was
 * deleted, not yet in the store, would otherwise outlive the binding and keep its copy on the
 * member for good (found by the fleet model, test/chaos). Entries go once the store shows them.
 * Only a Work's identity is held, not the manifest it carries.
 */
const unseenWorks = new WeakMap<HubView, Map<string, WorkRef[]>>();

function unseenOf(view: HubView): Map<string, WorkRef[]> {
  let unseen = unseenWorks.get(view);
  if (!unseen) unseenWorks.set(view, (unseen = new Map<string, WorkRef[]>()));
  return unseen;
}

export async function reconcile(key: BindingKey, view: HubView, log: Logger): Promise<Outcome> {
  const client = view.bindingClient(key.kind);
  const binding = view.bindings(key.kind).get(key.namespace || undefined, key.name);
  if (!binding) return done();
  const works = worksOf(binding, key.kind, view);
  const unseen = unseenOf(view);
  const bindingUid = binding.metadata.uid!;
  const stillUnseen = (unseen.get(bindingUid) ?? []).filter(
    (created) => !works.some((work) => work.metadata.uid === created.metadata.uid),
  );
  if (stillUnseen.length > 0) unseen.set(bindingUid, stillUnseen);
  else unseen.delete(bindingUid);
  const finalizer = bindingFinalizer(key.kind);
  if (binding.metadata.deletionTimestamp) {
    for (const work of works) if (!work.metadata.deletionTimestamp) await deleteWork(work, view);
    for (const work of stillUnseen)
      await deleteWork(work, view).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    unseen.delete(bindingUid);
    if (binding.metadata.finalizers?.includes(finalizer))
      await client.update({
        ...binding,
        metadata: {
          ...binding.metadata,
          finalizers: binding.metadata.finalizers.filter((f) => f !== finalizer),
        },
      });
    return done();
  }
  const templateKey = templateKeyOfBinding(binding);
  const templates = templateKey && view.templates.get(templateKey.apiVersion, templateKey.kind);
  if (!templateKey || !templates) return done(); // the kind's informer has not listed yet; its readiness wakes this key
  const template = templates.informer.store.get(templateKey.namespace || undefined, templateKey.name);
  if (!template || template.metadata.uid !== binding.spec.resource.uid) {
    await client.delete(key.name, key.namespace || undefined, {
      preconditions: { uid: binding.metadata.uid },
    });
    return done();
  }
  if (!binding.metadata.finalizers?.includes(finalizer)) {
    await client.update({
      ...binding,
      metadata: { ...binding.metadata, finalizers: [...(binding.metadata.finalizers ?? []), finalizer] },
    });
    return done();
  }
  const clusters = new Set((binding.spec.clusters ?? []).map((cluster) => cluster.name));
  for (const work of works)
    if (!clusters.has(clusterOfWork(work)) && !work.metadata.deletionTimestamp) await deleteWork(work, view);
  if (clusters.size && awaitsClaimedTemplate(binding, template, works)) return done();
  const current = template.metadata.resourceVersion === binding.spec.resource.resourceVersion;
  const conflictResolution = conflictResolutionOf(template, binding.spec.conflictResolution, (message) =>
    log.warn(message),
  );
  for (const cluster of clusters) {
    const namespace = executionSpaceName(cluster);
    const name = workName(templateKey.kind, templateKey.name, templateKey.namespace || undefined);
    const existing = view.works.store.get(namespace, name);
    if (existing?.metadata.deletionTimestamp) continue; // its deletion event wakes this binding
    if (existing && !current) continue;
    const recorded = current ? undefined : recordedManifest(works);
    const desired = desiredWork(
      binding,
      key,
      template,
      { namespace, name },
      existing,
      conflictResolution,
      recorded,
    );
    if (!existing) {
      try {
        const { name, namespace, uid } = (await view.worksClient.create(desired)).metadata;
        unseen.set(bindingUid, [...(unseen.get(bindingUid) ?? []), { metadata: { name, namespace, uid } }]);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      continue;
    }
    const next: Work = {
      ...existing,
      metadata: {
        ...existing.metadata,
        labels: { ...existing.metadata.labels, ...desired.metadata.labels },
        annotations: { ...existing.metadata.annotations, ...desired.metadata.annotations },
      },
      spec: desired.spec,
    };
    if (!jsonEqual(next.metadata, existing.metadata) || !jsonEqual(next.spec, existing.spec))
      await view.worksClient.update(next);
  }
  return done();
}

/**
 * A binding made from a claim write its template store has not shown yet (§2.4, §2.5): the
 * detector created the binding from the template its claim write returned, so the binding carries
 * a claim the stored template lacks and records another version, and no Work of the binding holds
 * a manifest yet. Works built now would carry the template without its claim keys, and would be
 * rewritten, with their member copies, a moment later; the stored template reaching the recorded
 * version wakes the binding instead (`templateCaughtUp`). A binding whose claim the template
 * carries is not held (a lost claim keeps its recorded version for good).
 */
export function awaitsClaimedTemplate(binding: Binding, stored: KubeObject, works: readonly Work[]): boolean {
  const claim = claimOf(binding);
  return (
    claim !== undefined &&
    claimOf(stored)?.id !== claim.id &&
    stored.metadata.resourceVersion !== binding.spec.resource.resourceVersion &&
    !recordedManifest(works)
  );
}

/** A template event that can decide a binding: its deletion, or its reaching the version the binding records. */
export function templateCaughtUp(event: InformerEvent<KubeObject>, view: HubView): BindingKey[] {
  const key = bindingKeyOfTemplate(templateKeyOf(event.object));
  if (event.type === 'DELETED') return [key];
  const binding = view.bindings(key.kind).get(key.namespace || undefined, key.name);
  return binding?.spec.resource.resourceVersion === event.object.metadata.resourceVersion ? [key] : [];
}

function desiredWork(
  binding: Binding,
  key: BindingKey,
  template: KubeObject,
  work: { namespace: string; name: string },
  existing: Work | undefined,
  conflictResolution: 'overwrite' | 'abort',
  recorded: KubeObject | undefined,
): Work {
  const bindingId = binding.metadata.labels![bindingIdLabel(key.kind)];
  const workId = existing?.metadata.labels?.[WORK_PERMANENT_ID_LABEL] ?? randomUUID();
  const cluster = key.kind === 'ClusterResourceBinding';
  const address = { namespace: work.namespace, name: work.name, id: workId };
  const manifest = recorded
    ? readdressedManifest(recorded, address)
    : buildManifest(
        template,
        { cluster, namespace: key.namespace || undefined, name: key.name, id: bindingId },
        address,
        conflictResolution,
      );
  return {
    apiVersion: 'work.karmada.io/v1alpha1',
    kind: 'Work',
    metadata: {
      name: work.name,
      namespace: work.namespace,
      labels: { [bindingIdLabel(key.kind)]: bindingId, [WORK_PERMANENT_ID_LABEL]: workId },
      annotations: {
        ...(cluster
          ? { [CRB_NAME_ANNOTATION]: key.name }
          : { [RB_NAMESPACE_ANNOTATION]: key.namespace, [RB_NAME_ANNOTATION]: key.name }),
        [CONFLICT_RESOLUTION_ANNOTATION]: conflictResolution,
      },
      finalizers: [WORK_FINALIZER],
    },
    spec: {
      workload: { manifests: [manifest] },
      preserveResourcesOnDeletion: binding.spec.preserveResourcesOnDeletion ?? false,
      suspendDispatching: false,
    },
  };
}

/** The manifest a live Work of the binding holds, if any. */
function recordedManifest(works: readonly Work[]): KubeObject | undefined {
  const live = works.find(
    (work) => !work.metadata.deletionTimestamp && work.spec?.workload?.manifests?.length,
  );
  return live?.spec?.workload?.manifests?.[0] as KubeObject | undefined;
}

async function deleteWork(work: WorkRef, view: HubView): Promise<void> {
  await view.worksClient.delete(work.metadata.name!, work.metadata.namespace, {
    preconditions: { uid: work.metadata.uid },
  });
}

/** The binding a Work comes from, read from its annotations. */
export function bindingKeyOfWork(work: Work): BindingKey | undefined {
  const annotations = work.metadata.annotations ?? {};
  if (annotations[RB_NAME_ANNOTATION] && annotations[RB_NAMESPACE_ANNOTATION])
    return {
      kind: 'ResourceBinding',
      namespace: annotations[RB_NAMESPACE_ANNOTATION],
      name: annotations[RB_NAME_ANNOTATION],
    };
  if (annotations[CRB_NAME_ANNOTATION])
    return { kind: 'ClusterResourceBinding', namespace: '', name: annotations[CRB_NAME_ANNOTATION] };
  return undefined;
}

export const bindingSyncController: ControllerDefinition<EngineContext> = {
  name,
  build(ctx: EngineContext): Controller<BindingKey> {
    const view = hubView(ctx);
    const controller = bindingController(ctx, view, {
      name,
      reconcile: (key, log) => reconcile(key, view, log),
    });
    controller.watch(
      watches(view.works, (event: InformerEvent<Work>) => {
        const key = event.type === 'DELETED' ? bindingKeyOfWork(event.object) : undefined;
        return key ? [key] : [];
      }),
    );
    view.templates.onReady((kind) => {
      for (const binding of [
        ...view.resourceBindings.store.list(),
        ...view.clusterResourceBindings.store.list(),
      ]) {
        const resource = templateKeyOfBinding(binding);
        if (resource?.apiVersion === kind.apiVersion && resource.kind === kind.kind)
          controller.enqueue(bindingKeyOf(binding));
      }
      return controller.watch(watches(kind.informer, (event) => templateCaughtUp(event, view)));
    });
    return controller;
  },
};
