/**
 * Project-plane watch: how a controller follows every engaged project plane — the informers it
 * reads there, the triggers that turn their events into its keys, and the keys to wake when a
 * plane's stores become usable or the plane goes away.
 *
 * Guarantees:
 * - `trigger()` is one Trigger for the controller to watch; subscribing it follows the plane
 *   registry (planes engaged now, then every transition), and unsubscribing it — which
 *   `Controller.stop` does — unsubscribes every per-plane trigger and forgets every plane, so a
 *   stopped controller leaves nothing subscribed;
 * - `view(project)` answers only once every informer the plane's watch asked for has listed, so
 *   a reconcile never judges a project from a half-filled store; `engaged(project)` tells an
 *   engaged-but-listing plane apart from one that is not engaged at all;
 * - `keys()` of a plane are enqueued once its informers have synced and again when it
 *   disengages, so keys judged "not engaged" or "not yet listed" are judged again.
 * Caveat: a plane whose informers never list (unreachable) stays engaged and unviewed; its
 * keys wait for the plane to list or disengage.
 */
import type { Informer } from '../../runtime/informer-contract.ts';
import type { EngagedPlane, PlaneRegistry } from '../../runtime/planes.ts';
import type { Trigger } from '../../runtime/triggers.ts';

export interface PlaneWatch<K, V> {
  /** What a reconcile reads in the plane. */
  view: V;
  /** The informers `view` reads; the plane is usable once all have synced. */
  informers: Informer[];
  triggers: Trigger<K>[];
  /** Keys to wake when the plane becomes usable and when it disengages. */
  keys(): K[];
}

interface Followed<K, V> {
  plane: EngagedPlane;
  watch: PlaneWatch<K, V>;
  synced: boolean;
  unsubscribes: (() => void)[];
}

export class ProjectPlaneWatch<K, V> {
  private readonly planes = new Map<string, Followed<K, V>>();

  constructor(
    private readonly registry: PlaneRegistry,
    private readonly watchPlane: (plane: EngagedPlane) => PlaneWatch<K, V>,
  ) {}

  trigger(): Trigger<K> {
    return (enqueue) => {
      const unsubscribe = this.registry.subscribe({
        engaged: (plane) => this.engage(plane, enqueue),
        disengaged: (plane) => this.disengage(plane, enqueue),
      });
      return () => {
        unsubscribe();
        for (const followed of this.planes.values()) for (const stop of followed.unsubscribes) stop();
        this.planes.clear();
      };
    };
  }

  /** True while the project's plane is engaged, listed or not. */
  engaged(project: string): boolean {
    return this.registry.get(project) !== undefined;
  }

  /** The plane's view, once its informers have listed. */
  view(project: string): V | undefined {
    const followed = this.planes.get(project);
    return followed?.synced && !followed.plane.signal.aborted ? followed.watch.view : undefined;
  }

  /** Every project whose view is usable. */
  projects(): string[] {
    return [...this.planes.values()].filter((f) => f.synced).map((f) => f.plane.project);
  }

  private engage(plane: EngagedPlane, enqueue: (key: K) => void): void {
    const watch = this.watchPlane(plane);
    const followed: Followed<K, V> = {
      plane,
      watch,
      synced: false,
      unsubscribes: watch.triggers.map((trigger) => trigger(enqueue)),
    };
    this.planes.set(plane.project, followed);
    void Promise.all(watch.informers.map((informer) => informer.synced())).then(
      () => {
        if (this.planes.get(plane.project) !== followed) return;
        followed.synced = true;
        for (const key of watch.keys()) enqueue(key);
      },
      // A plane disengaged before its first list: its informers stopped; nothing to wake.
      () => undefined,
    );
  }

  private disengage(plane: EngagedPlane, enqueue: (key: K) => void): void {
    const followed = this.planes.get(plane.project);
    if (!followed || followed.plane !== plane) return;
    this.planes.delete(plane.project);
    for (const stop of followed.unsubscribes) stop();
    for (const key of followed.watch.keys()) enqueue(key);
  }
}
