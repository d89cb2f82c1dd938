/**
 * The scheduling the server's lifecycle controllers share: a sweep of one named thing (a
 * terminating namespace, a deleting CRD) runs in a microtask after the write that asked for it —
 * never inside another write, so watchers see events in revision order — at most once per
 * microtask however often it is asked for, and again after RETRY_MS when a delete it made was
 * refused (an admission plugin may hold an object back).
 */
import type { KubeObject } from '../objects.ts';
import type { PlaneState } from '../plane-state.ts';
import { presentedForm, type ResourceType } from '../resources/resource-type.ts';
import { deleteObject } from '../writes.ts';

/** How soon a refused lifecycle step is tried again. */
export const RETRY_MS = 1000;

export class Sweeps {
  private readonly pending = new Set<string>();

  constructor(
    private readonly plane: PlaneState,
    private readonly sweep: (name: string) => void,
  ) {}

  schedule(name: string): void {
    if (this.pending.has(name)) return;
    this.pending.add(name);
    queueMicrotask(() => {
      this.pending.delete(name);
      this.sweep(name);
    });
  }

  /** Deletes one stored object for the sweep of `name`; a refusal sweeps again later. */
  tryDelete(type: ResourceType, stored: KubeObject, name: string): void {
    try {
      deleteObject(this.plane, type, presentedForm(type, stored));
    } catch {
      setTimeout(() => this.schedule(name), RETRY_MS).unref();
    }
  }
}
