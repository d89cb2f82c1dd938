/**
 * Namespace termination, as the Kubernetes namespace controller does it: a deleted Namespace
 * turns Terminating, everything in it is deleted (each object's own finalizers are honoured),
 * and once nothing remains the `kubernetes` finalizer is dropped and the Namespace goes.
 *
 * Guarantees: while content remains, the Namespace carries the condition
 * `NamespaceContentRemaining=True` and stays readable; new content is refused (writes.ts). The
 * work runs in a microtask after the write that triggered it, never inside another write, so
 * watchers see events in revision order.
 */
import { nowRfc3339, type KubeObject } from '../objects.ts';
import type { PlaneState } from '../plane-state.ts';
import { objectKey, type ResourceType } from '../resources/resource-type.ts';
import type { StoredEvent } from '../storage/revision-log.ts';
import { Sweeps } from './sweeps.ts';

export const NAMESPACE_STORAGE = '/namespaces';

export class NamespaceTermination {
  private readonly sweeps: Sweeps;
  private readonly unsubscribe: () => void;

  constructor(private readonly plane: PlaneState) {
    this.sweeps = new Sweeps(plane, (name) => this.sweep(name));
    this.unsubscribe = plane.log.subscribeAll((event) => this.observe(event));
    for (const ns of plane.log.list(NAMESPACE_STORAGE)) {
      if (ns.metadata.deletionTimestamp) this.sweeps.schedule(ns.metadata.name!);
    }
  }

  /** Starts deleting a namespace: marks it Terminating and schedules the sweep. */
  terminate(namespace: KubeObject): KubeObject {
    if (namespace.metadata.deletionTimestamp) return namespace;
    const marked: KubeObject = {
      ...namespace,
      metadata: {
        ...namespace.metadata,
        deletionTimestamp: nowRfc3339(this.plane.now()),
        deletionGracePeriodSeconds: 0,
      },
      status: { ...(namespace.status as object), phase: 'Terminating' },
    };
    return this.plane.log.put(NAMESPACE_STORAGE, objectKey(undefined, namespace.metadata.name!), marked);
  }

  close(): void {
    this.unsubscribe();
  }

  private observe(event: StoredEvent): void {
    if (event.resource === NAMESPACE_STORAGE) {
      if (event.type !== 'DELETED' && event.object.metadata.deletionTimestamp)
        this.sweeps.schedule(event.object.metadata.name!);
      return;
    }
    const namespace = event.object.metadata.namespace;
    if (
      event.type === 'DELETED' &&
      namespace &&
      this.plane.namespace(namespace)?.metadata.deletionTimestamp
    ) {
      this.sweeps.schedule(namespace);
    }
  }

  private namespacedTypes(): ResourceType[] {
    const seen = new Set<string>();
    return this.plane.catalog
      .all()
      .filter((t) => t.namespaced && !seen.has(t.storage) && seen.add(t.storage));
  }

  private sweep(name: string): void {
    const namespace = this.plane.namespace(name);
    if (!namespace?.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const type of this.namespacedTypes()) {
      for (const stored of this.plane.log.list(type.storage, name)) {
        if (!stored.metadata.deletionTimestamp) this.sweeps.tryDelete(type, stored, name);
        if (this.plane.log.get(type.storage, objectKey(name, stored.metadata.name!))) remaining++;
      }
    }
    const key = objectKey(undefined, name);
    const current = this.plane.namespace(name)!;
    if (remaining > 0) {
      this.setContentRemaining(current, remaining);
      return;
    }
    const spec = (current.spec ?? {}) as { finalizers?: string[] };
    const finalizers = (spec.finalizers ?? []).filter((f) => f !== 'kubernetes');
    if (finalizers.length > 0 || (current.metadata.finalizers ?? []).length > 0) {
      this.plane.log.put(NAMESPACE_STORAGE, key, { ...current, spec: { ...spec, finalizers } });
      return;
    }
    this.plane.log.remove(NAMESPACE_STORAGE, key);
  }

  private setContentRemaining(namespace: KubeObject, remaining: number): void {
    const status = (namespace.status ?? {}) as { conditions?: { type: string; message?: string }[] };
    const message = `Some resources are remaining: ${remaining} objects`;
    const existing = status.conditions?.find((c) => c.type === 'NamespaceContentRemaining');
    if (existing?.message === message) return;
    const conditions = (status.conditions ?? []).filter((c) => c.type !== 'NamespaceContentRemaining');
    conditions.push({
      type: 'NamespaceContentRemaining',
      status: 'True',
      lastTransitionTime: nowRfc3339(this.plane.now()),
      reason: 'SomeResourcesRemain',
      message,
    } as never);
    this.plane.log.put(NAMESPACE_STORAGE, objectKey(undefined, namespace.metadata.name!), {
      ...namespace,
      status: { ...status, conditions },
    });
  }
}
