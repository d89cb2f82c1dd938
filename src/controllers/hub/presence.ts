/**
 * Presence (controllers.md §5): keeps exactly one project-plane NetworkContext per (project
 * namespace, network, location) for as long as a NetworkBinding on the hub declares it, and
 * reports the context's readiness on every such binding.
 *
 * Guarantees: a context is deleted only when no live, well-directed binding in any hub
 * namespace of its project namespace holds its pair, only if this controller wrote it (it
 * carries a network-uid label) and only if it serves that very pair; the hub copy is never
 * touched. A terminating Network never gets a context, and a context is written only after
 * every holder carries the Network's UID. Every input that can change an outcome is watched,
 * so the only timed retry is the 60 s backstop of `ProjectUnresolved`. Writes happen only when
 * something differs (binding-report.ts, context-projection.ts). A reconcile first decides
 * (`decide`, reading only the stores) and then writes that decision in one place (`write`).
 * A new context carries from its create the finalizers `PresenceConfig` names for its spec (the
 * manager's project controllers' own; none alone); presence never adds one to a context that
 * exists, nor removes one.
 * Caveat: a binding never reports its own deletion.
 */
import { PresenceMetrics } from './presence-metrics.ts';
import { LOCATION_LABEL, NETWORK_LABEL, NETWORK_UID_LABEL } from '../../apis/common/labels.ts';
import {
  locationBindingKind,
  locationBindingName,
  type LocationBinding,
} from '../../apis/networking/v1alpha/location-binding.ts';
import {
  networkBindingKind,
  networkBindingMessages,
  NetworkBindingReason,
  type NetworkBinding,
} from '../../apis/networking/v1alpha/network-binding.ts';
import {
  networkContextKind,
  networkContextName,
  NetworkContextConditionType,
  type NetworkContext,
} from '../../apis/networking/v1alpha/network-context.ts';
import { networkKind, type Network } from '../../apis/networking/v1alpha/network.ts';
import { isAlreadyExists } from '../../client/errors.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import { backstop } from '../../runtime/backstop.ts';
import { Controller, done, requeue, ROUND_TRIP_WORKERS, type Outcome } from '../../runtime/controller.ts';
import type { Informer, ObjectStore } from '../../runtime/informer-contract.ts';
import type { EngagedPlane } from '../../runtime/planes.ts';
import {
  forObject,
  generationChanged,
  labelsChanged,
  watches,
  type Trigger,
} from '../../runtime/triggers.ts';
import type { ControllerDefinition, ManagerContext } from '../../runtime/manager-context.ts';
import { isConditionTrue } from '../../runtime/conditions.ts';
import {
  hubNamespacesOf,
  hubNamespacesOfProject,
  namespaceRoutingIndexes,
  routeFromStore,
  type ResolvedNamespace,
} from '../shared/hub-routing.ts';
import { ProjectPlaneWatch, type PlaneWatch } from '../shared/project-plane-watch.ts';
import { NAMESPACES, resourceIdOf } from '../../runtime/resource-ids.ts';
import { report, stampLabels, type BindingOutcome, type BindingWriter } from './binding-report.ts';
import { contextPatch, newContext, projectContext } from './context-projection.ts';
import {
  BY_CONTEXT_NAME,
  BY_LOCATION,
  BY_NAMESPACE,
  BY_NETWORK,
  BY_PAIR,
  bindingIndexes,
  contextNameValue,
  keyOfBinding,
  keyOfContext,
  keysIn,
  locationValue,
  namespaceValue,
  networkValue,
  pairValue,
  presenceKeyFromString,
  presenceKeyString,
  type PresenceKey,
} from './presence-keys.ts';

export const name = 'presence';

const BINDINGS = resourceIdOf(networkBindingKind);
const NETWORKS = resourceIdOf(networkKind);
const CONTEXTS = resourceIdOf(networkContextKind);
const LOCATION_BINDINGS = resourceIdOf(locationBindingKind);

/** What a reconcile reads in one project plane. */
export interface ProjectView {
  networks: ObjectStore<Network>;
  contexts: ObjectStore<NetworkContext>;
  locationBindings: ObjectStore<LocationBinding>;
  contextsClient: ResourceClient<NetworkContext>;
}

export interface PresenceConfig {
  /**
   * The finalizers a new context carries from its create: those the project-plane controllers
   * running beside presence would each add in a write of their own, racing one another for the
   * context's resourceVersion (the manager's composition, processes/manager.ts). None alone.
   */
  contextFinalizers(spec: NetworkContext['spec']): readonly string[];
}

export interface PresenceDeps {
  config: PresenceConfig;
  bindings: ObjectStore<NetworkBinding>; // hub, with bindingIndexes
  namespaces: ObjectStore; // hub, with namespaceRoutingIndexes
  /** Which project planes are engaged, and what a listed one holds. */
  projects: Pick<ProjectPlaneWatch<PresenceKey, ProjectView>, 'engaged' | 'view'>;
  writer: BindingWriter;
}

/**
 * Everything one reconcile writes, decided from the stores before the first write. The writes
 * then happen in this order: reports on misdirected bindings, the teardown delete, the holders'
 * labels, the context, the holders' report.
 */
export interface PresenceDecision {
  /** Bindings that name another project namespace: each gets its refusal. */
  misdirected: { binding: NetworkBinding; outcome: BindingOutcome }[];
  /** The context this controller wrote for a pair nobody holds any more. */
  teardown?: { context: NetworkContext; client: ResourceClient<NetworkContext> };
  /** What the holders must carry and hear; without `outcome`, the projected context's readiness. */
  holders?: { bindings: NetworkBinding[]; labels: Record<string, string>; outcome?: BindingOutcome };
  /** The context to create or bring up to date, after the holders carry the Network's UID. */
  project?: {
    existing: NetworkContext | undefined;
    network: Network;
    route: ResolvedNamespace;
    client: ResourceClient<NetworkContext>;
  };
  next: Outcome;
}

export async function reconcile(key: PresenceKey, deps: PresenceDeps): Promise<Outcome> {
  return write(key, decide(key, deps), deps);
}

/** Steps 1–12 of controllers.md §5 as a value: what to write, and what follows. */
export function decide(key: PresenceKey, deps: PresenceDeps): PresenceDecision {
  const candidates = deps.bindings.byIndex(BY_PAIR, pairValue(key)).filter(isLive);
  const route = routeFromStore(deps.namespaces, key.hubNamespace);
  if (!route.resolved) {
    if (candidates.length === 0) return { misdirected: [], next: done() };
    return {
      misdirected: [],
      holders: {
        bindings: candidates,
        labels: pairLabels(key),
        outcome: refusal(NetworkBindingReason.ProjectUnresolved, route.message),
      },
      next: backstop(), // `ProjectUnresolved` is the one outcome no watch covers
    };
  }
  const holders = candidates.filter((binding) => !isMisdirected(binding, route.projectNamespace));
  const misdirected = candidates
    .filter((binding) => isMisdirected(binding, route.projectNamespace))
    .map((binding) => ({ binding, outcome: misdirection(binding, route) }));
  if (holders.length === 0) return { misdirected, teardown: teardown(key, route, deps), next: done() };
  return { misdirected, ...serve(key, route, holders, deps) };
}

/** Writes what `decide` decided; the outcome it asked for, or `requeue` when a create lost a race. */
async function write(key: PresenceKey, decision: PresenceDecision, deps: PresenceDeps): Promise<Outcome> {
  await Promise.all(
    decision.misdirected.map(({ binding, outcome }) => report([binding], outcome, deps.writer)),
  );
  const { teardown: gone, holders, project } = decision;
  if (gone)
    await gone.client.delete(gone.context.metadata.name!, gone.context.metadata.namespace, {
      preconditions: { uid: gone.context.metadata.uid },
    });
  if (!holders) return decision.next;
  // A refusal stamps the pair's labels; a served pair gets them with the Network's UID, in one
  // write (every write is a round trip a binding waits for).
  const stamped = await stampLabels(holders.bindings, holders.labels, deps.writer);
  let outcome = holders.outcome;
  if (!outcome && project) {
    const context = await projectOnto(key, project, deps.config);
    if (!context) return requeue(); // a create lost a race to a context no event has shown us yet
    outcome = readiness(context, { namespace: project.route.projectNamespace, name: context.metadata.name! });
  }
  if (outcome) await report(stamped, outcome, deps.writer);
  return decision.next;
}

/** Steps 6–12: the pair has holders in a routable namespace. */
function serve(
  key: PresenceKey,
  route: ResolvedNamespace,
  bindings: NetworkBinding[],
  deps: PresenceDeps,
): Omit<PresenceDecision, 'misdirected'> {
  const { project, projectNamespace } = route;
  const refuse = (reason: string, message: string, next = done()) => ({
    holders: { bindings, labels: pairLabels(key), outcome: refusal(reason, message) },
    next,
  });
  if (!deps.projects.engaged(project))
    // `ProjectUnresolved` is the one outcome no watch covers
    return refuse(
      NetworkBindingReason.ProjectUnresolved,
      networkBindingMessages.projectNotEngaged(project),
      backstop(),
    );
  const view = deps.projects.view(project);
  if (!view) return { next: done() }; // still listing; the plane's first list wakes this key
  if (!view.locationBindings.get(undefined, locationBindingName(key.location)))
    return refuse(
      NetworkBindingReason.LocationNotAvailable,
      networkBindingMessages.locationNotAvailable(project, key.location),
    );
  const network = view.networks.get(projectNamespace, key.network);
  if (!network || network.metadata.deletionTimestamp) {
    const message = network
      ? networkBindingMessages.networkDeleting(key.network, projectNamespace, project)
      : networkBindingMessages.networkNotFound(key.network, projectNamespace, project);
    return refuse(NetworkBindingReason.NetworkNotFound, message);
  }
  const labels = { ...pairLabels(key), [NETWORK_UID_LABEL]: network.metadata.uid! };
  const existing = view.contexts.get(projectNamespace, networkContextName(key.network, key.location));
  const judged = existing && judge(existing, key, network, route);
  if (judged) return { holders: { bindings, labels, outcome: judged }, next: done() };
  return {
    holders: { bindings, labels },
    project: { existing, network, route, client: view.contextsClient },
    next: done(),
  };
}

/** Step 4: no binding holds the pair any more; the context to delete, if any. */
function teardown(
  key: PresenceKey,
  route: ResolvedNamespace,
  deps: PresenceDeps,
): PresenceDecision['teardown'] {
  const view = deps.projects.view(route.project);
  if (!view) return undefined;
  if (heldElsewhere(key, route, deps)) return undefined;
  const context = view.contexts.get(route.projectNamespace, networkContextName(key.network, key.location));
  if (!context || context.metadata.deletionTimestamp) return undefined;
  if (!context.metadata.labels?.[NETWORK_UID_LABEL]) return undefined;
  if (context.spec.network.name !== key.network || context.spec.location.name !== key.location)
    return undefined;
  return { context, client: view.contextsClient };
}

/** Another hub namespace of the same project namespace has a holder for the pair. */
function heldElsewhere(key: PresenceKey, route: ResolvedNamespace, deps: PresenceDeps): boolean {
  return hubNamespacesOf(deps.namespaces, route.project, route.projectNamespace)
    .filter((hubNamespace) => hubNamespace !== key.hubNamespace)
    .some((hubNamespace) =>
      deps.bindings
        .byIndex(BY_PAIR, pairValue({ ...key, hubNamespace }))
        .some((binding) => isLive(binding) && !isMisdirected(binding, route.projectNamespace)),
    );
}

/** Step 10: an existing context this pair cannot use (yet), or undefined when it can. */
function judge(
  context: NetworkContext,
  key: PresenceKey,
  network: Network,
  route: ResolvedNamespace,
): BindingOutcome | undefined {
  const { project, projectNamespace } = route;
  const contextName = context.metadata.name!;
  if (context.spec.network.name !== key.network || context.spec.location.name !== key.location) {
    const message = networkBindingMessages.nameConflict(
      contextName,
      projectNamespace,
      project,
      { network: context.spec.network.name, location: context.spec.location.name },
      { network: key.network, location: key.location },
    );
    return refusal(NetworkBindingReason.NetworkContextNameConflict, message);
  }
  const ref = { namespace: projectNamespace, name: contextName };
  if (context.metadata.deletionTimestamp)
    return {
      ...refusal(NetworkBindingReason.NetworkContextNotReady, networkBindingMessages.contextDeleting),
      ref,
    };
  const controllerRef = context.metadata.ownerReferences?.find((owner) => owner.controller === true);
  if (controllerRef?.kind === networkKind.kind && controllerRef.uid !== network.metadata.uid)
    return {
      ...refusal(NetworkBindingReason.NetworkContextNotReady, networkBindingMessages.contextOfEarlierNetwork),
      ref,
    };
  return undefined;
}

/** Step 11: the context as projected, or undefined when a create found the name taken. */
async function projectOnto(
  key: PresenceKey,
  { existing, network, route, client }: NonNullable<PresenceDecision['project']>,
  config: PresenceConfig,
): Promise<NetworkContext | undefined> {
  const contextName = networkContextName(key.network, key.location);
  const projection = projectContext(key, route.clusterNameLabel, route.projectNamespace, network);
  if (!existing) {
    const finalizers = config.contextFinalizers(projection.spec);
    try {
      return await client.create(newContext(contextName, route.projectNamespace, projection, finalizers));
    } catch (err) {
      if (isAlreadyExists(err)) return undefined;
      throw err;
    }
  }
  const patch = contextPatch(existing, projection);
  return patch ? client.patchMerge(contextName, route.projectNamespace, patch) : existing;
}

function readiness(context: NetworkContext, ref: BindingOutcome['ref']): BindingOutcome {
  return isConditionTrue(context.status?.conditions, NetworkContextConditionType.Ready)
    ? {
        status: 'True',
        reason: NetworkBindingReason.NetworkContextReady,
        message: networkBindingMessages.contextReady,
        ref,
      }
    : {
        ...refusal(NetworkBindingReason.NetworkContextNotReady, networkBindingMessages.contextNotReady),
        ref,
      };
}

function misdirection(binding: NetworkBinding, route: ResolvedNamespace): BindingOutcome {
  const message = networkBindingMessages.misdirected(
    binding.spec.network.name,
    binding.spec.network.namespace!,
    route.project,
    route.projectNamespace,
  );
  return refusal(NetworkBindingReason.NetworkNotFound, message);
}

function refusal(reason: string, message: string): BindingOutcome {
  return { status: 'False', reason, message };
}

function pairLabels(key: PresenceKey): Record<string, string> {
  return { [NETWORK_LABEL]: key.network, [LOCATION_LABEL]: key.location };
}

function isLive(object: KubeObject): boolean {
  return !object.metadata.deletionTimestamp;
}

function isMisdirected(binding: NetworkBinding, projectNamespace: string): boolean {
  const given = binding.spec.network.namespace;
  return given !== undefined && given !== '' && given !== projectNamespace;
}

/** The hub triggers; project-plane triggers come and go with the planes (`watchProject`). */
export function triggers(
  bindings: Informer<NetworkBinding>,
  namespaces: Informer,
  projects: ProjectPlaneWatch<PresenceKey, ProjectView>,
): Trigger<PresenceKey>[] {
  return [
    forObject(bindings, keyOfBinding),
    watches(
      namespaces,
      (event) => keysIn(bindings.store, BY_NAMESPACE, namespaceValue(event.object.metadata.name!)),
      labelsChanged,
    ),
    projects.trigger(),
  ];
}

/** What presence reads and watches in one engaged project plane. */
function watchProject(
  plane: EngagedPlane,
  bindings: ObjectStore<NetworkBinding>,
  namespaces: ObjectStore,
): PlaneWatch<PresenceKey, ProjectView> {
  const networks = plane.informer<Network>(NETWORKS);
  const contexts = plane.informer<NetworkContext>(CONTEXTS);
  const locationBindings = plane.informer<LocationBinding>(LOCATION_BINDINGS);
  const hubNamespaces = (projectNamespace: string) =>
    hubNamespacesOf(namespaces, plane.project, projectNamespace);
  const contextKeys = (context: NetworkContext): PresenceKey[] =>
    hubNamespaces(context.metadata.namespace!).flatMap((hubNamespace) => [
      ...keysIn(bindings, BY_CONTEXT_NAME, contextNameValue(hubNamespace, context.metadata.name!)),
      // The pair a context this controller wrote serves, even when no binding names it any
      // more: a binding deleted while the plane was away still tears its context down.
      ...(context.metadata.labels?.[NETWORK_UID_LABEL] ? [keyOfContext(hubNamespace, context)] : []),
    ]);
  const everyKey = (): PresenceKey[] => [
    ...hubNamespacesOfProject(namespaces, plane.project).flatMap((hubNamespace) =>
      keysIn(bindings, BY_NAMESPACE, namespaceValue(hubNamespace)),
    ),
    ...contexts.store.list().flatMap(contextKeys),
  ];
  return {
    view: {
      networks: networks.store,
      contexts: contexts.store,
      locationBindings: locationBindings.store,
      contextsClient: plane.client<NetworkContext>(CONTEXTS),
    },
    informers: [networks, contexts, locationBindings],
    triggers: [
      watches(
        networks,
        (event) =>
          hubNamespaces(event.object.metadata.namespace!).flatMap((hubNamespace) =>
            keysIn(bindings, BY_NETWORK, networkValue(hubNamespace, event.object.metadata.name!)),
          ),
        generationChanged,
      ),
      watches(contexts, (event) => [
        ...contextKeys(event.object),
        ...(event.previous ? contextKeys(event.previous) : []),
      ]),
      watches(
        locationBindings,
        (event) =>
          hubNamespacesOfProject(namespaces, plane.project).flatMap((hubNamespace) =>
            keysIn(bindings, BY_LOCATION, locationValue(hubNamespace, event.object.metadata.name!)),
          ),
        (event) => event.type !== 'MODIFIED',
      ),
    ],
    keys: everyKey,
  };
}

export const presenceControllerWith = (config: PresenceConfig): ControllerDefinition => ({
  name,
  build(ctx: ManagerContext): Controller<PresenceKey> {
    const bindings = ctx.hub.informer<NetworkBinding>(BINDINGS, { indexes: bindingIndexes });
    const namespaces = ctx.hub.informer(NAMESPACES, { indexes: namespaceRoutingIndexes });
    const projects = new ProjectPlaneWatch<PresenceKey, ProjectView>(ctx.projects, (plane) =>
      watchProject(plane, bindings.store, namespaces.store),
    );
    const presenceMetrics = new PresenceMetrics(ctx.metrics.registry, () => bindings.store.list());
    const deps: PresenceDeps = {
      config,
      bindings: bindings.store,
      namespaces: namespaces.store,
      projects,
      writer: {
        client: ctx.hub.client<NetworkBinding>(BINDINGS),
        now: () => ctx.clock.now(),
        turnedReady: (binding, nowMs) => presenceMetrics.turnedReady(binding, nowMs),
        lastWritten: new Map(),
      },
    };
    const controller = new Controller<PresenceKey>({
      name,
      reconcile: (key) => reconcile(key, deps),
      toString: presenceKeyString,
      fromString: presenceKeyFromString,
      planeOf: () => ctx.hub.name,
      workers: ROUND_TRIP_WORKERS,
      clock: ctx.clock,
      log: ctx.log,
      metrics: ctx.metrics,
      // Some writes are refused by state no watch of presence reports (a project namespace not
      // there yet): a stale write backs off.
      onStale: 'backoff',
    });
    for (const trigger of triggers(bindings, namespaces, projects)) controller.watch(trigger);
    return controller;
  },
});

/** Presence alone, as controllers.md §5 has it: a new context carries no finalizer. */
export const presenceController = presenceControllerWith({ contextFinalizers: () => [] });
