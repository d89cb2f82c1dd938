/**
 * Drift (propagation.md §6): the engine watches each member for the kinds of that member's Works
 * and maps every relevant change of a copy back to the Work that made it, through the copy's
 * `work.karmada.io/namespace` and `work.karmada.io/name` annotations. The Work's reconcile then
 * reverts what the member changed, through the retain merge, or writes nothing.
 *
 * Guarantees:
 * - an ADDED or DELETED event counts when the object carries `karmada.io/managed=true`; a
 *   MODIFIED event counts when the object carried it before the update (so a copy whose managed
 *   label a member user removed is looked at once more: adopted again or refused); every other
 *   event is ignored;
 * - a (cluster, kind) is watched from the first time a Work of that kind is applied there until
 *   the member is forgotten; when the member directory answers a new PlaneAccess for the cluster
 *   (its access changed), the watch moves to it;
 * - `kind(...).observed` reads the member's store once it has listed, and the member itself
 *   before, so a reconcile never waits on a member that does not answer.
 * Caveat: a kind stays watched on a member after its last Work there is gone, until the member
 * is forgotten (its Cluster deleted or its access changed).
 */
import type { PlaneAccess } from '../../runtime/manager-context.ts';
import type { KubeObject, ResourceId } from '../../client/types.ts';
import type { InformerEvent } from '../../runtime/informer-contract.ts';
import { watches, type Trigger } from '../../runtime/triggers.ts';
import { WORK_NAME_ANNOTATION, WORK_NAMESPACE_ANNOTATION } from '../../apis/work/v1alpha1/work.ts';
import type { MemberKind } from './apply.ts';
import { isManaged } from './conflict.ts';
import type { WorkKey } from './work-key.ts';

interface KindWatch {
  plane: PlaneAccess;
  synced: boolean;
  unsubscribe: () => void;
  kind: MemberKind;
}

/** The Work a member object says it comes from. */
export function workOf(object: KubeObject): WorkKey | undefined {
  const namespace = object.metadata.annotations?.[WORK_NAMESPACE_ANNOTATION];
  const name = object.metadata.annotations?.[WORK_NAME_ANNOTATION];
  return namespace && name ? { namespace, name } : undefined;
}

/** The Works a member event wakes (§6's rules). */
export function worksWoken(event: InformerEvent): WorkKey[] {
  const counted = event.type === 'MODIFIED' ? event.previous : event.object;
  if (!counted || !isManaged(counted)) return [];
  const keys = [workOf(counted), event.type === 'MODIFIED' ? workOf(event.object) : undefined];
  const unique = new Map<string, WorkKey>();
  for (const key of keys) if (key) unique.set(`${key.namespace}/${key.name}`, key);
  return [...unique.values()];
}

export class MemberWatches {
  private readonly held = new Map<string, KindWatch>();

  /** `watch` subscribes a trigger on the execution controller and returns its unsubscribe. */
  constructor(private readonly watch: (trigger: Trigger<WorkKey>) => () => void) {}

  /** The kind `id` on `cluster`'s member, watched for drift from now on. */
  kind(cluster: string, plane: PlaneAccess, id: ResourceId): MemberKind {
    const key = `${cluster}|${id.group}|${id.version}|${id.plural}`;
    const held = this.held.get(key);
    if (held && held.plane === plane) return held.kind;
    held?.unsubscribe();
    const informer = plane.informer(id);
    const client = plane.client(id);
    const watch: KindWatch = {
      plane,
      synced: false,
      unsubscribe: this.watch(watches(informer, worksWoken)),
      kind: {
        client,
        observed: (namespace, name) =>
          watch.synced ? Promise.resolve(informer.store.get(namespace, name)) : client.get(name, namespace),
      },
    };
    informer.synced().then(
      () => (watch.synced = true),
      () => undefined, // stopped before it listed: the member was forgotten
    );
    this.held.set(key, watch);
    return watch.kind;
  }
}
