/**
 * CRD deletion, as the apiextensions server does it: a CRD carries the finalizer
 * `customresourcecleanup.apiextensions.k8s.io`; when it is deleted, every object of its kind is
 * deleted (their own finalizers honoured, the kind still served so controllers can clear them),
 * and once none remain the finalizer is dropped and the CRD — and its kind — go.
 *
 * Guarantees: the CRD carries `Terminating=True (InstanceDeletionInProgress)` meanwhile. Work
 * runs in a microtask after the triggering write.
 */
import { nowRfc3339, type KubeObject } from '../objects.ts';
import type { PlaneState } from '../plane-state.ts';
import { CRD_STORAGE } from '../resources/catalog.ts';
import { objectKey } from '../resources/resource-type.ts';
import { CRD_CLEANUP_FINALIZER, type CrdSpec } from '../resources/crd.ts';
import type { StoredEvent } from '../storage/revision-log.ts';
import { Sweeps } from './sweeps.ts';

export class CrdCleanup {
  private readonly sweeps: Sweeps;
  private readonly unsubscribe: () => void;

  constructor(private readonly plane: PlaneState) {
    this.sweeps = new Sweeps(plane, (name) => this.sweep(name));
    this.unsubscribe = plane.log.subscribeAll((event) => this.observe(event));
    for (const crd of plane.log.list(CRD_STORAGE)) {
      if (crd.metadata.deletionTimestamp) this.sweeps.schedule(crd.metadata.name!);
    }
  }

  close(): void {
    this.unsubscribe();
  }

  private observe(event: StoredEvent): void {
    if (event.resource === CRD_STORAGE) {
      if (event.type !== 'DELETED' && event.object.metadata.deletionTimestamp)
        this.sweeps.schedule(event.object.metadata.name!);
      return;
    }
    if (event.type !== 'DELETED') return;
    for (const crd of this.plane.log.list(CRD_STORAGE)) {
      const spec = crd.spec as CrdSpec;
      if (crd.metadata.deletionTimestamp && `${spec.group}/${spec.names.plural}` === event.resource) {
        this.sweeps.schedule(crd.metadata.name!);
      }
    }
  }

  private sweep(name: string): void {
    const key = objectKey(undefined, name);
    const crd = this.plane.log.get(CRD_STORAGE, key);
    if (!crd?.metadata.deletionTimestamp) return;
    const spec = crd.spec as CrdSpec;
    const storage = `${spec.group}/${spec.names.plural}`;
    const type = this.plane.catalog.typesOfStorage(storage)[0];
    if (type) {
      for (const stored of this.plane.log.list(storage)) {
        if (!stored.metadata.deletionTimestamp) this.sweeps.tryDelete(type, stored, name);
      }
    }
    if (this.plane.log.count(storage) > 0) {
      this.markTerminating(crd);
      return;
    }
    const finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    if (finalizers.length > 0) {
      this.plane.log.put(CRD_STORAGE, key, { ...crd, metadata: { ...crd.metadata, finalizers } });
    } else {
      this.plane.log.remove(CRD_STORAGE, key);
    }
  }

  private markTerminating(crd: KubeObject): void {
    const status = (crd.status ?? {}) as { conditions?: { type: string }[] };
    if (status.conditions?.some((c) => c.type === 'Terminating')) return;
    const conditions = [
      ...(status.conditions ?? []),
      {
        type: 'Terminating',
        status: 'True',
        lastTransitionTime: nowRfc3339(this.plane.now()),
        reason: 'InstanceDeletionInProgress',
        message: 'CustomResource deletion is in progress',
      },
    ];
    this.plane.log.put(CRD_STORAGE, objectKey(undefined, crd.metadata.name!), {
      ...crd,
      status: { ...status, conditions },
    });
  }
}
