/**
 * What the write path (writes.ts) and the lifecycle controllers (lifecycle/) read and write
 * through: one plane's revision log, catalog, admission chain and clock. `Plane` (plane.ts)
 * implements it and builds the lifecycle controllers; they see only this, so the plane, its
 * lifecycle and the write path import each other in one direction only.
 */
import type { AdmissionPlugin } from './admission/plugins.ts';
import type { KubeObject } from './objects.ts';
import type { Catalog } from './resources/catalog.ts';
import type { RevisionLog } from './storage/revision-log.ts';
import type { WriteCounter } from './write-counter.ts';

export interface PlaneState {
  readonly name: string;
  readonly log: RevisionLog;
  readonly catalog: Catalog;
  readonly admission: readonly AdmissionPlugin[];
  /** The largest encoded object a write may store (limits.ts). */
  readonly maxObjectBytes: number;
  /** Counts the writes that advance the revision, when configured. */
  readonly writeCounter?: WriteCounter;
  now(): Date;
  namespace(name: string): KubeObject | undefined;
  /** Starts deleting a namespace (Terminating); it goes once its content is gone. */
  terminateNamespace(namespace: KubeObject): KubeObject;
}
