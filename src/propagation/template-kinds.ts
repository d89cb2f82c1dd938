/**
 * Template kinds (propagation.md §0.1): the hub kinds the engine watches as templates — the
 * union of the (apiVersion, kind) pairs named in any policy's `resourceSelectors` and in any
 * binding's `spec.resource`. A kind enters the set when a policy or binding names it, and leaves
 * when none does; its informer is started and stopped accordingly.
 *
 * Guarantees:
 * - the set is kept by reference counts per source object, so an event costs the size of that
 *   object's selectors, never a scan of every policy and binding;
 * - a kind is resolved through the hub's discovery; a kind the hub does not serve gets a
 *   Warning Event `KindNotServed` on every policy naming it, and is resolved again whenever a
 *   CustomResourceDefinition changes (that is when discovery changes);
 * - `onReady` listeners hear of a kind only once its informer has listed (so a reconcile that
 *   finds no template in a ready kind's store may conclude it is gone), and their cleanup runs
 *   when the kind leaves; a listener added late hears of every kind already ready.
 */
import type { Logger } from 'pino';
import { internString } from '../apis/common/interned-strings.ts';
import type { KubeObject } from '../client/types.ts';
import type { PlaneAccess } from '../runtime/manager-context.ts';
import type { EventRecorder } from '../runtime/event-recorder.ts';
import type { Clock } from '../runtime/clock.ts';
import type { InformerEvent } from '../runtime/informer-contract.ts';
import { createInformer, type RunningInformer } from '../runtime/informer.ts';
import { KindNotServedError, type KindResolver } from './kinds.ts';
import type { Policy } from './policy-model.ts';
import { BY_CLAIM_ID, byClaimId } from './resources.ts';

export const KIND_NOT_SERVED_EVENT = 'KindNotServed';
export const kindNotServedNote = (apiVersion: string, kind: string): string =>
  `the hub does not serve kind ${kind} at apiVersion ${apiVersion}, which resourceSelectors name; ` +
  `templates of that kind are not propagated until a CustomResourceDefinition serves it`;

/** One watched template kind, once its informer has listed. */
export interface TemplateKind {
  apiVersion: string;
  kind: string;
  informer: RunningInformer<KubeObject>;
}

export type KindListener = (kind: TemplateKind) => (() => void) | void;

interface KindState {
  apiVersion: string;
  kind: string;
  informer?: RunningInformer<KubeObject>;
  ready: boolean;
  unserved: boolean;
  cleanups: (() => void)[];
}

export interface TemplateKindsDeps {
  hub: PlaneAccess;
  kinds: KindResolver;
  clock: Clock;
  log: Logger;
  recorder: EventRecorder;
}

export function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}|${kind}`;
}

const NONE: ReadonlySet<string> = new Set();

/** The keys of the kinds `object`, a policy (its selectors) or a binding (its resource), names. */
function kindsNamedBy(object: KubeObject, policy: boolean): Set<string> {
  const named = new Set<string>();
  // Keys are interned: a hub's thousands of bindings name a few kinds, and each binding keeps its key.
  const add = (apiVersion: string, kind: string) => named.add(internString(kindKey(apiVersion, kind)));
  if (policy) {
    for (const selector of (object as Policy).spec?.resourceSelectors ?? [])
      add(selector.apiVersion, selector.kind);
  } else {
    const resource = (object.spec as { resource?: { apiVersion: string; kind: string } } | undefined)
      ?.resource;
    if (resource) add(resource.apiVersion, resource.kind);
  }
  return named;
}

export class TemplateKinds {
  /** What each policy names, and the policy (told when a kind it names is not served). */
  private readonly policies = new Map<string, { kinds: Set<string>; policy: Policy }>();
  /** The one kind each binding names: a hub holds a binding per propagated object. */
  private readonly bindings = new Map<string, string>();
  private readonly counts = new Map<string, number>();
  private readonly states = new Map<string, KindState>();
  private readonly listeners = new Set<KindListener>();
  private stopped = false;

  constructor(private readonly deps: TemplateKindsDeps) {}

  /** A policy (selectors) or binding (resource) changed: recount the kinds it names. */
  observe(source: string, event: InformerEvent<KubeObject>, policy: boolean): void {
    const object = event.object;
    const named = event.type === 'DELETED' ? new Set<string>() : kindsNamedBy(object, policy);
    const held = this.heldBy(source, policy);
    if (policy) {
      if (named.size === 0) this.policies.delete(source);
      else this.policies.set(source, { kinds: named, policy: object as Policy });
    } else {
      const [kind] = named;
      if (kind === undefined) this.bindings.delete(source);
      else this.bindings.set(source, kind);
    }
    for (const key of named) if (!held.has(key)) this.count(key, +1);
    for (const key of held) if (!named.has(key)) this.count(key, -1);
    if (policy) for (const key of named) if (!held.has(key)) this.reportIfUnserved(key, object as Policy);
  }

  /** The kinds a source counted for until now. */
  private heldBy(source: string, policy: boolean): ReadonlySet<string> {
    if (policy) return this.policies.get(source)?.kinds ?? NONE;
    const kind = this.bindings.get(source);
    return kind === undefined ? NONE : new Set([kind]);
  }

  /** A policy newly naming a kind already known to be unserved hears of it too. */
  private reportIfUnserved(key: string, policy: Policy): void {
    const state = this.states.get(key);
    if (!state?.unserved) return;
    void this.deps.recorder.record(policy, {
      type: 'Warning',
      reason: KIND_NOT_SERVED_EVENT,
      action: 'Resolve',
      note: kindNotServedNote(state.apiVersion, state.kind),
    });
  }

  /** The kind's informer, once it has listed; undefined while it resolves or is not served. */
  get(apiVersion: string, kind: string): TemplateKind | undefined {
    const state = this.states.get(kindKey(apiVersion, kind));
    return state?.ready && state.informer ? { apiVersion, kind, informer: state.informer } : undefined;
  }

  ready(): TemplateKind[] {
    return [...this.states.values()]
      .filter((state) => state.ready && state.informer)
      .map((state) => ({ apiVersion: state.apiVersion, kind: state.kind, informer: state.informer! }));
  }

  /** Calls `listener` for every ready kind, now and as kinds become ready. */
  onReady(listener: KindListener): () => void {
    this.listeners.add(listener);
    for (const state of this.states.values()) if (state.ready) this.tell(listener, state);
    return () => this.listeners.delete(listener);
  }

  /** Discovery may have changed: resolve every unserved kind again. */
  discoveryChanged(): void {
    this.deps.kinds.forget(this.deps.hub.kubeConfig.getCurrentCluster()?.server ?? '');
    for (const [key, state] of this.states) if (state.unserved) void this.resolve(key, state);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const states = [...this.states.values()];
    this.states.clear();
    await Promise.all(states.map((state) => this.retire(state)));
  }

  private count(key: string, delta: number): void {
    const next = (this.counts.get(key) ?? 0) + delta;
    if (next > 0) this.counts.set(key, next);
    else this.counts.delete(key);
    if (next > 0 && !this.states.has(key)) {
      const [apiVersion, kind] = key.split('|');
      const state: KindState = { apiVersion, kind, ready: false, unserved: false, cleanups: [] };
      this.states.set(key, state);
      void this.resolve(key, state);
    } else if (next <= 0) {
      const state = this.states.get(key);
      if (state) {
        this.states.delete(key);
        void this.retire(state);
      }
    }
  }

  private async resolve(key: string, state: KindState): Promise<void> {
    const { hub, kinds, log } = this.deps;
    try {
      const id = await kinds.resolve(hub.kubeConfig, state.apiVersion, state.kind);
      if (this.stopped || this.states.get(key) !== state || state.informer) return;
      state.unserved = false;
      const informer = createInformer<KubeObject>({
        plane: hub.name,
        client: hub.client<KubeObject>(id),
        clock: this.deps.clock,
        log,
        indexes: { [BY_CLAIM_ID]: byClaimId },
      });
      state.informer = informer;
      informer.start();
      await informer.synced();
      if (this.stopped || this.states.get(key) !== state) return;
      state.ready = true;
      log.info({ apiVersion: state.apiVersion, kind: state.kind }, 'watching a template kind');
      for (const listener of this.listeners) this.tell(listener, state);
    } catch (err) {
      if (this.stopped || this.states.get(key) !== state) return;
      state.unserved = true;
      if (err instanceof KindNotServedError) await this.reportUnserved(key, state);
      else {
        log.warn({ err, kind: state.kind }, 'could not resolve a template kind; retrying');
        this.deps.clock.setTimeout(() => {
          if (this.states.get(key) === state && !state.informer) void this.resolve(key, state);
        }, 1000);
      }
    }
  }

  private async reportUnserved(key: string, state: KindState): Promise<void> {
    const note = kindNotServedNote(state.apiVersion, state.kind);
    this.deps.log.warn({ apiVersion: state.apiVersion, kind: state.kind }, note);
    for (const source of this.policies.values()) {
      if (!source.kinds.has(key)) continue;
      await this.deps.recorder.record(source.policy, {
        type: 'Warning',
        reason: KIND_NOT_SERVED_EVENT,
        action: 'Resolve',
        note,
      });
    }
  }

  private tell(listener: KindListener, state: KindState): void {
    const cleanup = listener({ apiVersion: state.apiVersion, kind: state.kind, informer: state.informer! });
    if (cleanup) state.cleanups.push(cleanup);
  }

  private async retire(state: KindState): Promise<void> {
    state.ready = false;
    for (const cleanup of state.cleanups.splice(0)) cleanup();
    await state.informer?.stop();
    this.deps.log.info(
      { apiVersion: state.apiVersion, kind: state.kind },
      'no longer watching a template kind',
    );
  }
}
