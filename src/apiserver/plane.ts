/**
 * A plane: one isolated Kubernetes API — its own revision log, its own catalog of served kinds,
 * its own admission chain — reachable under one base path of the shared listener.
 *
 * Guarantees: planes share nothing but the listener; the same name in two planes is two objects
 * with independent revisions. A new plane already holds the namespaces `default` and
 * `kube-system`, as kubectl expects.
 */
import type { AdmissionPlugin } from './admission/plugins.ts';
import { schemaAdmission } from './admission/schema-admission.ts';
import { prepareSoon } from './admission/schema-preparation.ts';
import { DEFAULT_MAX_OBJECT_BYTES } from './limits.ts';
import { serviceUnavailable } from './errors.ts';
import { nowRfc3339, type KubeObject } from './objects.ts';
import type { PlaneState } from './plane-state.ts';
import { Catalog } from './resources/catalog.ts';
import { builtinTypes } from './resources/builtins.ts';
import { objectKey, storedForm } from './resources/resource-type.ts';
import { RevisionLog, type LogBackend } from './storage/revision-log.ts';
import { CrdCleanup } from './lifecycle/crd-cleanup.ts';
import { GarbageCollector } from './lifecycle/garbage-collector.ts';
import { NamespaceTermination } from './lifecycle/namespace-termination.ts';
import { removeStrandedDeletions } from './lifecycle/stranded-deletions.ts';
import { randomUUID } from 'node:crypto';
import type { WriteCounter } from './write-counter.ts';

export interface PlaneOptions {
  historyLimit?: number;
  /** Bytes the revision log's window may hold (objects and their previous states); 64 MiB by default. */
  historyBytes?: number;
  /** Age past which events leave the revision log's window (beyond its last 100); 75 s by default. */
  historyAgeMs?: number;
  /** The largest encoded object a write may store (1.5 MiB by default). */
  maxObjectBytes?: number;
  backend?: LogBackend;
  now?: () => Date;
  /** Counts every write that advances the revision, by who made it (write-counter.ts). */
  writeCounter?: WriteCounter;
}

export const INITIAL_NAMESPACES = ['default', 'kube-system'];

export class Plane implements PlaneState {
  readonly log: RevisionLog;
  readonly catalog: Catalog;
  /** Schema admission for custom resources first; what composes the plane may add more. */
  readonly admission: AdmissionPlugin[] = [schemaAdmission()];
  readonly now: () => Date;
  readonly maxObjectBytes: number;
  /**
   * Why the plane serves read-only, when it could not load what it stored (set by the server
   * once the plane is built from what could be salvaged); absent for a healthy plane.
   */
  degraded?: { file: string; cause: string };
  readonly writeCounter?: WriteCounter;
  private readonly namespaceTermination: NamespaceTermination;
  private readonly crdCleanup: CrdCleanup;
  private readonly garbageCollector: GarbageCollector;

  constructor(
    readonly name: string,
    /** The path under which the plane is served: '' for the root plane, else e.g. `/planes/hub`. */
    readonly basePath: string,
    options: PlaneOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    // A durable plane commits in groups: one fsync for every write of a loop turn.
    this.log = new RevisionLog(
      options.historyLimit,
      options.backend,
      options.historyBytes,
      options.backend !== undefined,
      options.historyAgeMs,
      () => this.now().getTime(),
    );
    removeStrandedDeletions(this.log);
    this.maxObjectBytes = options.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
    this.writeCounter = options.writeCounter;
    // A kind's admission is compiled once it is served, not by its first write.
    this.catalog = new Catalog(this.log, (type) => prepareSoon(type.schema));
    for (const namespace of INITIAL_NAMESPACES) this.ensureNamespace(namespace);
    this.namespaceTermination = new NamespaceTermination(this);
    this.crdCleanup = new CrdCleanup(this);
    this.garbageCollector = new GarbageCollector(this);
  }

  /** Makes the plane read-only: every write, the server's own included, is refused 503. */
  degrade(file: string, cause: string): void {
    this.degraded = { file, cause };
    this.log.readOnly = serviceUnavailable(
      `plane ${this.name} is read-only: it could not load what it stored, so it serves what could be read and accepts no write. ${cause}`,
    );
  }

  /**
   * Runs `write` on a degraded plane as if it were writable. Its writes reach memory only (a
   * degraded plane's backend stores nothing; its file is never written) and are gone after a
   * restart: for the server's own static configuration (CRDs, grants), never for a request.
   */
  writeInMemory<T>(write: () => T): T {
    const guard = this.log.readOnly;
    this.log.readOnly = undefined;
    try {
      return write();
    } finally {
      this.log.readOnly = guard;
    }
  }

  /** Starts deleting a namespace (Terminating); it goes once its content is gone. */
  terminateNamespace(namespace: KubeObject): KubeObject {
    return this.namespaceTermination.terminate(namespace);
  }

  addAdmission(plugin: AdmissionPlugin): void {
    this.admission.push(plugin);
  }

  namespace(name: string): KubeObject | undefined {
    return this.log.get('/namespaces', objectKey(undefined, name));
  }

  close(): void {
    this.namespaceTermination.close();
    this.crdCleanup.close();
    this.garbageCollector.close();
    this.catalog.close();
    this.log.close();
  }

  private ensureNamespace(name: string): void {
    if (this.namespace(name)) return;
    const type = builtinTypes.find((t) => t.kind === 'Namespace')!;
    const object = type.prepareForCreate!({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, uid: randomUUID(), creationTimestamp: nowRfc3339(this.now()) },
    });
    this.log.put(type.storage, objectKey(undefined, name), storedForm(type, object));
  }
}
