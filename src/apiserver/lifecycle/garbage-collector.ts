/**
 * Owner-reference garbage collection for one plane, as the Kubernetes garbage collector does it.
 *
 * Guarantees:
 * - Background: an object whose every ownerReference points to an owner that does not exist
 *   (matched by uid; an owner of the same name with another uid, or a uid that never existed,
 *   counts as absent) is deleted — across kinds;
 * - Foreground (owner carries `foregroundDeletion`): its dependents are deleted (those with
 *   dependents of their own in foreground too), and the finalizer is removed once no dependent
 *   with `blockOwnerDeletion: true` remains;
 * - Orphan (owner carries `orphan`): the owner's entries are removed from its dependents'
 *   ownerReferences, then the finalizer is removed;
 * - a namespaced dependent resolves only owners in its namespace or cluster-scoped ones; a
 *   cluster-scoped dependent only cluster-scoped owners; anything else is unresolvable.
 *
 * Work runs in a microtask after the write that caused it, never inside another write, so
 * watchers see events in revision order. Deleting a dependent honours its own finalizers; a step
 * that is refused (by an admission plugin) is tried again after RETRY_MS.
 */
import { fileKey, keysOf, unfileKey, type Filed } from '../../runtime/filed-keys.ts';
import { deepEqual, type KubeObject, type OwnerReference } from '../objects.ts';
import type { PlaneState } from '../plane-state.ts';
import { presentedForm, type ResourceType } from '../resources/resource-type.ts';
import type { StoredEvent } from '../storage/revision-log.ts';
import { RETRY_MS } from './sweeps.ts';
import {
  deleteObject,
  FOREGROUND_FINALIZER,
  ORPHAN_FINALIZER,
  removeFinalizer,
  updateObject,
} from '../writes.ts';

interface Location {
  storage: string;
  key: string;
  namespace?: string;
}

const locationId = (l: Location): string => `${l.storage}|${l.key}`;

/** Whether two versions of an object name the same owners, in the same order. */
function sameOwners(object: KubeObject, previous: KubeObject): boolean {
  const owners = object.metadata.ownerReferences ?? [];
  const before = previous.metadata.ownerReferences ?? [];
  return (
    owners === before ||
    (owners.length === before.length && owners.every((ref, i) => ref.uid === before[i].uid))
  );
}

/** Only objects with owners, or owners being deleted, ever need the collector. */
function needsCollection(object: KubeObject): boolean {
  return (
    (object.metadata.ownerReferences ?? []).length > 0 || object.metadata.deletionTimestamp !== undefined
  );
}

export class GarbageCollector {
  /** uid → where the live object is. */
  private readonly objects = new Map<string, Location>();
  /**
   * owner uid → the uids of the objects referencing it: the strings the stored objects hold, filed
   * compactly (most owners have one dependent), rather than an id string made per dependent.
   */
  private readonly dependents = new Map<string, Filed>();
  private readonly pending = new Map<string, Location>();
  private scheduled = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly plane: PlaneState) {
    for (const storage of plane.log.resources()) {
      for (const object of plane.log.list(storage)) this.index(storage, undefined, object, undefined);
    }
    for (const storage of plane.log.resources()) {
      for (const object of plane.log.list(storage))
        if (needsCollection(object)) this.examine(this.locate(storage, object));
    }
    this.unsubscribe = plane.log.subscribeAll((event) => this.observe(event));
  }

  close(): void {
    this.unsubscribe();
  }

  /**
   * Where `object` is stored. `key`, when the caller has it, is the log's own key string: every
   * object of the plane is indexed here, so a copy of each key would be held twice.
   */
  private locate(storage: string, object: KubeObject, key?: string): Location {
    const namespace = object.metadata.namespace || undefined;
    return { storage, key: key ?? `${namespace ?? ''}/${object.metadata.name}`, namespace };
  }

  private index(
    storage: string,
    key: string | undefined,
    object: KubeObject | undefined,
    previous: KubeObject | undefined,
  ): void {
    // Most writes keep the object's uid and owners: nothing here changes.
    if (object && previous && object.metadata.uid === previous.metadata.uid && sameOwners(object, previous))
      return;
    const before = previous?.metadata.uid;
    if (previous && before) {
      for (const ref of previous.metadata.ownerReferences ?? []) unfileKey(this.dependents, ref.uid, before);
      this.objects.delete(before);
    }
    // Every stored object has a uid (the write path gives it one); one without is not indexed.
    const uid = object?.metadata.uid;
    if (!object || !uid) return;
    this.objects.set(uid, this.locate(storage, object, key));
    for (const ref of object.metadata.ownerReferences ?? []) fileKey(this.dependents, ref.uid, uid);
  }

  private observe(event: StoredEvent): void {
    const deleted = event.type === 'DELETED';
    this.index(event.resource, event.key, deleted ? undefined : event.object, event.previous);
    if (!deleted && needsCollection(event.object) && this.mayCollect(event))
      this.examine(this.locate(event.resource, event.object, event.key));
    const uid = event.object.metadata.uid;
    if (deleted && uid) {
      for (const dependent of keysOf(this.dependents.get(uid))) {
        const location = this.objects.get(dependent);
        if (location) this.examine(location);
      }
    }
    // A dependent that changed or went may unblock an owner in foreground deletion (an owner
    // that is not being deleted has nothing to wait for).
    for (const ref of event.object.metadata.ownerReferences ?? []) {
      const owner = this.objects.get(ref.uid);
      if (owner && this.plane.log.get(owner.storage, owner.key)?.metadata.deletionTimestamp !== undefined)
        this.examine(owner);
    }
  }

  /**
   * Whether a new or changed object may now be collected: it is new, being deleted, or its
   * owner references changed. An object whose references stayed as they were was examined when
   * they were set, and the only later change that can leave its owners unresolved, an owner
   * going, examines it then (`observe` of the owner's DELETED).
   */
  private mayCollect(event: StoredEvent): boolean {
    const { object, previous } = event;
    if (previous === undefined || object.metadata.deletionTimestamp !== undefined) return true;
    return !deepEqual(object.metadata.ownerReferences ?? [], previous.metadata.ownerReferences ?? []);
  }

  private examine(location: Location): void {
    this.pending.set(locationId(location), location);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    const batch = [...this.pending.values()];
    this.pending.clear();
    for (const location of batch) {
      try {
        this.process(location);
      } catch {
        // Refused (an admission plugin may hold an object back): look again shortly.
        setTimeout(() => this.examine(location), RETRY_MS).unref();
      }
    }
  }

  private typeOf(storage: string): ResourceType | undefined {
    return this.plane.catalog.typesOfStorage(storage)[0];
  }

  private process(location: Location): void {
    const stored = this.plane.log.get(location.storage, location.key);
    const type = this.typeOf(location.storage);
    if (!stored || !type) return;
    const object = presentedForm(type, stored);
    const finalizers = object.metadata.finalizers ?? [];
    if (object.metadata.deletionTimestamp && finalizers.includes(ORPHAN_FINALIZER)) {
      this.orphanDependents(object);
      removeFinalizer(this.plane, type, this.current(location, type)!, ORPHAN_FINALIZER);
      return;
    }
    if (object.metadata.deletionTimestamp && finalizers.includes(FOREGROUND_FINALIZER)) {
      if (this.deleteDependentsInForeground(object) === 0) {
        removeFinalizer(this.plane, type, object, FOREGROUND_FINALIZER);
      }
      return;
    }
    const refs = object.metadata.ownerReferences ?? [];
    if (
      refs.length > 0 &&
      !object.metadata.deletionTimestamp &&
      refs.every((ref) => !this.ownerResolves(location, ref))
    ) {
      deleteObject(this.plane, type, object, { propagationPolicy: 'Background' });
    }
  }

  private current(location: Location, type: ResourceType): KubeObject | undefined {
    const stored = this.plane.log.get(location.storage, location.key);
    return stored && presentedForm(type, stored);
  }

  private ownerResolves(dependent: Location, ref: OwnerReference): boolean {
    const owner = this.objects.get(ref.uid);
    if (!owner) return false;
    if (owner.namespace === undefined) return true;
    return dependent.namespace === owner.namespace;
  }

  private dependentsOf(owner: KubeObject): { location: Location; type: ResourceType; object: KubeObject }[] {
    const found = [];
    for (const dependent of keysOf(this.dependents.get(owner.metadata.uid!))) {
      const location = this.objects.get(dependent);
      const type = location && this.typeOf(location.storage);
      const stored = location && this.plane.log.get(location.storage, location.key);
      if (!location || !type || !stored) continue;
      if (!this.ownerResolves(location, { uid: owner.metadata.uid! } as OwnerReference)) continue;
      found.push({ location, type, object: presentedForm(type, stored) });
    }
    return found;
  }

  private orphanDependents(owner: KubeObject): void {
    for (const { type, object } of this.dependentsOf(owner)) {
      const ownerReferences = (object.metadata.ownerReferences ?? []).filter(
        (r) => r.uid !== owner.metadata.uid,
      );
      updateObject(
        this.plane,
        type,
        { ...object, metadata: { ...object.metadata, ownerReferences } },
        object,
      );
    }
  }

  /** Deletes the owner's dependents; returns how many that block the owner remain. */
  private deleteDependentsInForeground(owner: KubeObject): number {
    let blocking = 0;
    for (const { type, object } of this.dependentsOf(owner)) {
      const hasOwnDependents = this.dependents.has(object.metadata.uid!);
      const result = object.metadata.deletionTimestamp
        ? { pending: true }
        : deleteObject(this.plane, type, object, {
            propagationPolicy: hasOwnDependents ? 'Foreground' : 'Background',
          });
      const ref = (object.metadata.ownerReferences ?? []).find((r) => r.uid === owner.metadata.uid);
      if (result.pending && ref?.blockOwnerDeletion) blocking++;
    }
    return blocking;
  }
}
