/**
 * Namespace sync (propagation.md §5.5, §7.7): carries every eligible hub Namespace to every
 * Cluster as a namespace Work, which execution applies like any other Work.
 *
 * Guarantees:
 * - eligible means not `default`, `karmada-system`, `karmada-cluster`, `karmada-es-*` or
 *   `kube-*`, and not labelled `namespace.karmada.io/skip-auto-propagation` with a value equal to
 *   `true` in any case;
 * - for each eligible Namespace and each Cluster not being deleted there is one Work
 *   `workName('Namespace', <name>)` in `karmada-es-<cluster>`, with one controller
 *   ownerReference to the Namespace, the label `work.karmada.io/permanent-id` (a UUID chosen at
 *   creation and kept), the finalizer `karmada.io/execution-controller`, and one manifest: the
 *   Namespace stripped (strip.ts), with its own labels and annotations plus only
 *   `karmada.io/managed`, `work.karmada.io/permanent-id`, `resourcetemplate.karmada.io/uid`,
 *   `work.karmada.io/name`, `work.karmada.io/namespace` and the two managed-keys lists — no
 *   conflict resolution, so an unmanaged member namespace is never adopted;
 * - a Work is written only when it differs from the one held; one being deleted is left until
 *   it is gone;
 * - the Works are deleted only once the hub Namespace no longer exists (terminating is not
 *   enough), and a namespace Work changed or deleted by anyone else is put back; a Namespace labelled for skipping after it was carried keeps its Works as they
 *   are: no more updates, nothing deleted.
 */
import { randomUUID } from 'node:crypto';
import { jsonEqual } from '../../apis/common/json-equal.ts';
import type { Cluster } from '../../apis/cluster/v1alpha1/cluster.ts';
import { SKIP_AUTO_PROPAGATION_LABEL } from '../../apis/policy/v1alpha1/template-keys.ts';
import {
  executionSpaceName,
  MANAGED_ANNOTATIONS_ANNOTATION,
  MANAGED_LABEL,
  MANAGED_LABELS_ANNOTATION,
  TEMPLATE_UID_ANNOTATION,
  WORK_FINALIZER,
  WORK_NAME_ANNOTATION,
  WORK_NAMESPACE_ANNOTATION,
  WORK_PERMANENT_ID_LABEL,
  workName,
  type Work,
} from '../../apis/work/v1alpha1/work.ts';
import { isAlreadyExists } from '../../client/errors.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import type { ControllerDefinition } from '../../runtime/manager-context.ts';
import { NAMESPACES } from '../../runtime/resource-ids.ts';
import { type Controller, done, type Outcome } from '../../runtime/controller.ts';
import type { Informer, ObjectStore } from '../../runtime/informer-contract.ts';
import { forObject, owns, watches, type Trigger } from '../../runtime/triggers.ts';
import type { EngineContext } from '../engine-context.ts';
import { engineController, nameKeys } from '../engine-controller.ts';
import { bytewiseKeys } from '../manifest.ts';
import { isDeleting } from './cluster-state.ts';
import { CLUSTERS, WORKS } from './execution.ts';
import { stripped } from './strip.ts';
import { EXECUTION_SPACE_PREFIX } from './work-key.ts';

export const name = 'namespace-sync';

const RESERVED = new Set(['default', 'karmada-system', 'karmada-cluster']);

export function isCarried(namespace: KubeObject): boolean {
  const name = namespace.metadata.name ?? '';
  if (RESERVED.has(name) || name.startsWith(EXECUTION_SPACE_PREFIX) || name.startsWith('kube-')) return false;
  return namespace.metadata.labels?.[SKIP_AUTO_PROPAGATION_LABEL]?.toLowerCase() !== 'true';
}

/** §5.1's namespace manifest for the Work `work` (namespace, name, permanent id). */
export function namespaceManifest(
  namespace: KubeObject,
  work: { namespace: string; name: string; id: string },
): KubeObject {
  const manifest = stripped(namespace);
  manifest.apiVersion = 'v1';
  manifest.kind = 'Namespace';
  const labels = { ...manifest.metadata.labels, [MANAGED_LABEL]: 'true', [WORK_PERMANENT_ID_LABEL]: work.id };
  const annotations: Record<string, string> = {
    ...manifest.metadata.annotations,
    [TEMPLATE_UID_ANNOTATION]: namespace.metadata.uid ?? '',
    [WORK_NAME_ANNOTATION]: work.name,
    [WORK_NAMESPACE_ANNOTATION]: work.namespace,
    [MANAGED_LABELS_ANNOTATION]: bytewiseKeys(labels),
    [MANAGED_ANNOTATIONS_ANNOTATION]: '',
  };
  annotations[MANAGED_ANNOTATIONS_ANNOTATION] = bytewiseKeys(annotations);
  manifest.metadata.labels = labels;
  manifest.metadata.annotations = annotations;
  return manifest;
}

/** The namespace Work for `namespace` in `cluster`'s execution space, keeping `held`'s id. */
export function namespaceWork(namespace: KubeObject, cluster: string, held: Work | undefined): Work {
  const space = executionSpaceName(cluster);
  const workNameOf = workName('Namespace', namespace.metadata.name!);
  const id = held?.metadata.labels?.[WORK_PERMANENT_ID_LABEL] || randomUUID();
  return {
    apiVersion: 'work.karmada.io/v1alpha1',
    kind: 'Work',
    metadata: {
      name: workNameOf,
      namespace: space,
      labels: { ...held?.metadata.labels, [WORK_PERMANENT_ID_LABEL]: id },
      finalizers: held?.metadata.finalizers?.length ? held.metadata.finalizers : [WORK_FINALIZER],
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Namespace',
          name: namespace.metadata.name!,
          uid: namespace.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      workload: { manifests: [namespaceManifest(namespace, { namespace: space, name: workNameOf, id })] },
      preserveResourcesOnDeletion: false,
      suspendDispatching: false,
    },
  };
}

export interface NamespaceSyncDeps {
  namespaces: ObjectStore;
  clusters: ObjectStore<Cluster>;
  works: ObjectStore<Work>;
  worksClient: ResourceClient<Work>;
}

export async function reconcile(namespaceName: string, deps: NamespaceSyncDeps): Promise<Outcome> {
  const namespace = deps.namespaces.get(undefined, namespaceName);
  const workNameOf = workName('Namespace', namespaceName);
  if (!namespace) {
    const carried = deps.clusters
      .list()
      .map((cluster) => deps.works.get(executionSpaceName(cluster.metadata.name!), workNameOf))
      .filter((work): work is Work => work !== undefined && !work.metadata.deletionTimestamp);
    await Promise.all(
      carried.map((work) => deps.worksClient.delete(work.metadata.name!, work.metadata.namespace)),
    );
    return done();
  }
  if (!isCarried(namespace)) return done();
  const live = deps.clusters.list().filter((cluster) => !isDeleting(cluster));
  await Promise.all(live.map((cluster) => syncWork(namespace, cluster.metadata.name!, deps)));
  return done();
}

async function syncWork(namespace: KubeObject, cluster: string, deps: NamespaceSyncDeps): Promise<void> {
  const held = deps.works.get(executionSpaceName(cluster), workName('Namespace', namespace.metadata.name!));
  if (held?.metadata.deletionTimestamp) return;
  const desired = namespaceWork(namespace, cluster, held);
  if (!held) {
    await deps.worksClient.create(desired).catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
    return;
  }
  if (
    jsonEqual(held.spec, desired.spec) &&
    jsonEqual(held.metadata.ownerReferences, desired.metadata.ownerReferences) &&
    held.metadata.labels?.[WORK_PERMANENT_ID_LABEL] === desired.metadata.labels![WORK_PERMANENT_ID_LABEL]
  )
    return;
  await deps.worksClient.update({
    ...desired,
    metadata: { ...desired.metadata, resourceVersion: held.metadata.resourceVersion },
  });
}

export function triggers(
  namespaces: Informer,
  clusters: Informer<Cluster>,
  works: Informer<Work>,
): Trigger<string>[] {
  return [
    forObject(namespaces, (namespace) => namespace.metadata.name!),
    // A namespace Work changed or deleted by anyone else is put back.
    owns(works, 'Namespace', (owner) => owner.name),
    // A new Cluster (or its execution space appearing) receives every eligible namespace.
    watches(
      clusters,
      () => namespaces.store.list().map((namespace) => namespace.metadata.name!),
      (event) => event.type === 'ADDED',
    ),
  ];
}

export const namespaceSyncController: ControllerDefinition<EngineContext> = {
  name,
  build(ctx: EngineContext): Controller<string> {
    const namespaces = ctx.hub.informer(NAMESPACES);
    const clusters = ctx.hub.informer<Cluster>(CLUSTERS);
    const works = ctx.hub.informer<Work>(WORKS);
    const deps: NamespaceSyncDeps = {
      namespaces: namespaces.store,
      clusters: clusters.store,
      works: works.store,
      worksClient: ctx.hub.client<Work>(WORKS),
    };
    return engineController(ctx, {
      name,
      reconcile: (namespaceName) => reconcile(namespaceName, deps),
      ...nameKeys,
      triggers: triggers(namespaces, clusters, works),
    });
  },
};
