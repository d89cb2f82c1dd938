/**
 * Replicator (controllers.md §6): mirrors every project-plane NetworkContext and Subnet into the
 * hub namespace of its project namespace, spec and labels only, so the propagation engine can
 * carry them to cells.
 *
 * Guarantees: a hub copy carries the source's `spec` verbatim, the five upstream labels and the
 * source's network and location labels — never `network-uid`, status, owner references,
 * finalizers or annotations of its own; labels and annotations it does not own (the propagation
 * engine's claim metadata) are never removed or overwritten. A source carries
 * `networking.datumapis.com/hub-replicator` while its copy may exist, so deleting the source
 * deletes the copy first. A copy edited or deleted on the hub is restored; a copy whose source
 * is gone is deleted. Status never travels in either direction, and hub namespaces are created
 * and labelled, never deleted. Writes happen only when something differs.
 * No timed retry for a lost race: a write refused because the source changed since the store's
 * copy (a status write by the networkcontext controller, typically, right after the context is
 * created, refusing the finalizer) is redone at once from the server's copy (`onStale:
 * 'reread'`, runtime/controller.ts); a copy create refused because the copy exists ends the
 * reconcile quietly, and the copy's ADDED event wakes the key. A source still without the
 * finalizer is woken by any change, status included.
 *
 * Beside the networkcontext controller (`contextCopiesAwaitSubnets`, as the manager runs it), a
 * context's first hub copy waits for the Subnet its cells will need with it (differs from §6,
 * which copies at once): a context carrying IPv6 is copied once that controller has decided —
 * its `Ready` is no longer the seed — and, when the decision names a Subnet, once that Subnet's
 * hub copy exists. The propagation engine then carries the Subnet to the cells first, so a cell
 * builds a claim's interface with its gateway instead of building it without one and rewriting
 * it when the Subnet lands (§10, the gateway rule; about seven writes an interface in a burst,
 * where half the Subnets used to lose that race). A context IPAM refused, or one no class
 * addresses, is copied as soon as that is decided. Only a copy's create waits: a copy that
 * exists follows its source at once. Alone (scenarios 47–51), the replicator copies at once.
 */
import { NETWORKING_GROUP } from '../../apis/networking/v1alpha/group.ts';
import { LOCATION_LABEL, NETWORK_LABEL } from '../../apis/common/labels.ts';
import {
  hubNamespaceName,
  projectOfUpstreamClusterName,
  upstreamClusterName,
  UPSTREAM_CLUSTER_NAME_LABEL,
  UPSTREAM_GROUP_LABEL,
  UPSTREAM_KIND_LABEL,
  UPSTREAM_NAME_LABEL,
  UPSTREAM_NAMESPACE_LABEL,
} from '../../apis/common/upstream.ts';
import {
  HUB_REPLICATOR_FINALIZER,
  networkContextKind,
  type NetworkContext,
} from '../../apis/networking/v1alpha/network-context.ts';
import { subnetKind, type Subnet } from '../../apis/networking/v1alpha/subnet.ts';
import { isAlreadyExists } from '../../client/errors.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import {
  Controller,
  done,
  ROUND_TRIP_WORKERS,
  type Outcome,
  type ReconcilePass,
} from '../../runtime/controller.ts';
import type { Informer, InformerEvent, ObjectStore } from '../../runtime/informer-contract.ts';
import { ensureFinalizer, hasFinalizer, removeFinalizer } from '../../runtime/finalizer.ts';
import { findCondition } from '../../runtime/conditions.ts';
import { projectPlaneName, type EngagedPlane } from '../../runtime/planes.ts';
import { watches, type Predicate, type Trigger } from '../../runtime/triggers.ts';
import type { ControllerDefinition, ManagerContext } from '../../runtime/manager-context.ts';
import { mergePatchBetween } from '../../runtime/merge-patch-diff.ts';
import { changedLabels } from '../../runtime/writes.ts';
import { ProjectPlaneWatch, type PlaneWatch } from '../shared/project-plane-watch.ts';
import { NAMESPACES, resourceIdOf } from '../../runtime/resource-ids.ts';

export const name = 'replicator';

/** The kinds replicated, by kind name (each key is its definition's `kind`). */
export const REPLICATED = { NetworkContext: networkContextKind, Subnet: subnetKind };
export type ReplicatedKind = keyof typeof REPLICATED;
const REPLICATED_KINDS = Object.keys(REPLICATED) as ReplicatedKind[];

export interface ReplicaKey {
  project: string;
  kind: ReplicatedKind;
  namespace: string;
  name: string;
}

/** A source or copy: the replicator reads metadata and spec only. */
type Replicated = KubeObject & { spec?: unknown };

interface KindAccess {
  sources: ObjectStore<Replicated>;
  sourceClient: ResourceClient<Replicated>;
}

/** What a reconcile reads in one project plane. */
export interface ProjectView {
  kinds: Record<ReplicatedKind, KindAccess>;
  namespaces: ObjectStore;
}

export interface HubKind {
  copies: ObjectStore<Replicated>; // with copyIndexes
  client: ResourceClient<Replicated>;
}

export interface ReplicatorConfig {
  /** A context's first copy waits for its Subnet's (see the module comment). */
  contextCopiesAwaitSubnets: boolean;
}

export interface ReplicatorDeps {
  config: ReplicatorConfig;
  hub: Record<ReplicatedKind, HubKind>;
  hubNamespaces: ObjectStore;
  hubNamespacesClient: ResourceClient;
  projects: ProjectPlaneWatch<ReplicaKey, ProjectView>;
}

/** One pass; `fresh` (a pass after a lost race, `onStale: 'reread'`) reads the source from the server. */
export async function reconcile(
  key: ReplicaKey,
  deps: ReplicatorDeps,
  { fresh }: ReconcilePass = { fresh: false },
): Promise<Outcome> {
  const view = deps.projects.view(key.project);
  if (!view) return done();
  const { sources, sourceClient } = view.kinds[key.kind];
  const source = fresh
    ? await sourceClient.get(key.name, key.namespace)
    : sources.get(key.namespace, key.name);
  if (!source) {
    await deleteCopies(key, deps);
    return done();
  }
  if (source.metadata.deletionTimestamp) {
    if (!hasFinalizer(source, HUB_REPLICATOR_FINALIZER)) return done();
    await deleteCopies(key, deps);
    await removeFinalizer(sourceClient, source, HUB_REPLICATOR_FINALIZER);
    return done();
  }
  // A source changed since the store's copy (presence writing a new context Ready, say) refuses
  // the finalizer 409: the next pass reads it from the server (onStale 'reread').
  await ensureFinalizer(sourceClient, source, HUB_REPLICATOR_FINALIZER);
  const hubNamespace = await ensureHubNamespace(key, view, deps);
  await ensureCopy(key, source, hubNamespace, deps);
  return done();
}

async function deleteCopies(key: ReplicaKey, deps: ReplicatorDeps): Promise<void> {
  const { copies, client } = deps.hub[key.kind];
  await Promise.all(
    copies
      .byIndex(BY_UPSTREAM, upstreamValue(key))
      .map((copy) => client.delete(copy.metadata.name!, copy.metadata.namespace)),
  );
}

/** The hub namespace of the source's namespace, created or relabelled; returns its name. */
async function ensureHubNamespace(key: ReplicaKey, view: ProjectView, deps: ReplicatorDeps): Promise<string> {
  const projectNamespace = view.namespaces.get(undefined, key.namespace);
  if (!projectNamespace?.metadata.uid)
    throw new Error(
      `namespace "${key.namespace}" of project "${key.project}" is not in the store yet; its hub namespace cannot be named`,
    );
  const hubNamespace = hubNamespaceName(projectNamespace.metadata.uid);
  const labels = {
    [UPSTREAM_CLUSTER_NAME_LABEL]: upstreamClusterName(key.project),
    [UPSTREAM_NAMESPACE_LABEL]: key.namespace,
  };
  let held = deps.hubNamespaces.get(undefined, hubNamespace);
  if (!held) {
    try {
      await deps.hubNamespacesClient.create({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: hubNamespace, labels },
      });
      return hubNamespace;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      held = await deps.hubNamespacesClient.get(hubNamespace);
    }
  }
  const patch = changedLabels(held, labels);
  if (patch)
    await deps.hubNamespacesClient.patchMerge(hubNamespace, undefined, { metadata: { labels: patch } });
  return hubNamespace;
}

async function ensureCopy(
  key: ReplicaKey,
  source: Replicated,
  hubNamespace: string,
  deps: ReplicatorDeps,
): Promise<void> {
  const { copies, client } = deps.hub[key.kind];
  const labels = copyLabels(key, source);
  const held = copies.get(hubNamespace, key.name);
  if (!held) {
    // The source's status change or the Subnet copy's ADDED event wakes the key (triggers).
    if (deps.config.contextCopiesAwaitSubnets && copyAwaitsSubnet(key, source, hubNamespace, deps)) return;
    const owned = Object.fromEntries(Object.entries(labels).filter(([, value]) => value !== null)) as Record<
      string,
      string
    >;
    try {
      await client.create({
        apiVersion: source.apiVersion,
        kind: key.kind,
        metadata: { name: key.name, namespace: hubNamespace, labels: owned },
        spec: source.spec,
      });
    } catch (err) {
      // The store has not seen the copy yet: its ADDED event wakes this key.
      if (!isAlreadyExists(err)) throw err;
    }
    return;
  }
  const labelChanges = labelsPatch(held.metadata.labels, labels);
  const specChanges = mergePatchBetween(held.spec, source.spec);
  if (!labelChanges && specChanges === undefined) return;
  await client.patchMerge(key.name, hubNamespace, {
    ...(labelChanges && { metadata: { labels: labelChanges } }),
    ...(specChanges !== undefined && { spec: specChanges }),
  });
}

/**
 * Whether a context's first copy still waits: it carries IPv6 and the networkcontext controller
 * has not decided yet (`Ready` is the seed, or absent), or has named a Subnet whose hub copy is
 * not in the hub namespace yet.
 */
function copyAwaitsSubnet(
  key: ReplicaKey,
  source: Replicated,
  hubNamespace: string,
  deps: ReplicatorDeps,
): boolean {
  if (key.kind !== 'NetworkContext') return false;
  const context = source as NetworkContext;
  if (!(context.spec?.ipFamilies ?? []).includes('IPv6')) return false;
  const [ready, subnet] = subnetDecision(context);
  if (ready === undefined || ready === 'Unknown') return true;
  return subnet !== undefined && deps.hub.Subnet.copies.get(hubNamespace, subnet) === undefined;
}

/** The networkcontext controller's decision on a context: its Ready status and the Subnet it names. */
function subnetDecision(context: NetworkContext): [string | undefined, string | undefined] {
  return [
    findCondition(context.status?.conditions, 'Ready')?.status,
    context.status?.ipam?.ipv6SubnetRef?.name,
  ];
}

/** The labels a copy owns; `null` removes one the source no longer carries. */
function copyLabels(key: ReplicaKey, source: Replicated): Record<string, string | null> {
  const sourceLabels = source.metadata.labels ?? {};
  return {
    [UPSTREAM_CLUSTER_NAME_LABEL]: upstreamClusterName(key.project),
    [UPSTREAM_NAMESPACE_LABEL]: key.namespace,
    [UPSTREAM_GROUP_LABEL]: NETWORKING_GROUP,
    [UPSTREAM_KIND_LABEL]: key.kind,
    [UPSTREAM_NAME_LABEL]: key.name,
    [NETWORK_LABEL]: sourceLabels[NETWORK_LABEL] ?? null,
    [LOCATION_LABEL]: sourceLabels[LOCATION_LABEL] ?? null,
  };
}

/** The owned labels that differ from `held`, or undefined when none does. */
function labelsPatch(
  held: Record<string, string> | undefined,
  desired: Record<string, string | null>,
): Record<string, string | null> | undefined {
  const changes = Object.entries(desired).filter(([label, value]) => (held?.[label] ?? null) !== value);
  return changes.length > 0 ? Object.fromEntries(changes) : undefined;
}

// ── keys and the hub index of copies ───────────────────────────────────────────────────────

export const BY_UPSTREAM = 'byUpstream';

function upstreamValue(key: ReplicaKey): string {
  return JSON.stringify([key.project, key.namespace, key.kind, key.name]);
}

/** The key a hub copy stands for, from its upstream labels; undefined for any other object. */
export function keyOfCopy(copy: KubeObject, kind: ReplicatedKind): ReplicaKey | undefined {
  const labels = copy.metadata.labels ?? {};
  const project = projectOfUpstreamClusterName(labels[UPSTREAM_CLUSTER_NAME_LABEL] ?? '');
  const namespace = labels[UPSTREAM_NAMESPACE_LABEL];
  if (project === undefined || !namespace || labels[UPSTREAM_KIND_LABEL] !== kind) return undefined;
  return { project, kind, namespace, name: copy.metadata.name! };
}

const byUpstreamOf =
  (kind: ReplicatedKind) =>
  (copy: KubeObject): string[] => {
    const key = keyOfCopy(copy, kind);
    return key ? [upstreamValue(key)] : [];
  };

/** The index of hub copies, per kind (module-level: shared informers need the same function). */
export const copyIndexes: Record<ReplicatedKind, Record<string, (copy: KubeObject) => string[]>> = {
  NetworkContext: { [BY_UPSTREAM]: byUpstreamOf('NetworkContext') },
  Subnet: { [BY_UPSTREAM]: byUpstreamOf('Subnet') },
};

function replicaKeyString(key: ReplicaKey): string {
  return JSON.stringify([key.project, key.kind, key.namespace, key.name]);
}

function replicaKeyFromString(value: string): ReplicaKey {
  const parsed: unknown = JSON.parse(value);
  const kinds: string[] = REPLICATED_KINDS;
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    !parsed.every((part) => typeof part === 'string') ||
    !kinds.includes(parsed[1])
  )
    throw new Error(`a replica key is a JSON array of project, kind, namespace and name, got ${value}`);
  const [project, kind, namespace, objectName] = parsed as [string, ReplicatedKind, string, string];
  return { project, kind, namespace, name: objectName };
}

// ── triggers ───────────────────────────────────────────────────────────────────────────────

/** Status-only changes carry nothing the replicator writes. */
const specOrMetadataChanged: Predicate = (event) =>
  event.type !== 'MODIFIED' ||
  event.previous === undefined ||
  event.previous.metadata.generation !== event.object.metadata.generation ||
  JSON.stringify(event.previous.metadata.labels ?? {}) !==
    JSON.stringify(event.object.metadata.labels ?? {}) ||
  JSON.stringify(event.previous.metadata.finalizers ?? []) !==
    JSON.stringify(event.object.metadata.finalizers ?? []);

/** A context's subnet decision changed: a first copy awaiting it may go (`copyAwaitsSubnet`). */
const decisionChanged: Predicate = (event) => {
  if (event.type !== 'MODIFIED' || event.previous === undefined) return false;
  const [ready, subnet] = subnetDecision(event.object as NetworkContext);
  const [wasReady, wasSubnet] = subnetDecision(event.previous as NetworkContext);
  return ready !== wasReady || subnet !== wasSubnet;
};

/**
 * A source event the replicator acts on: as for copies, and also any change to a live source
 * that does not carry the replicator's finalizer yet — the finalizer write is guarded by the
 * source's resourceVersion, so a status write refuses it, and that write's event is what must
 * wake the key (a timed retry would wait out a backoff instead).
 */
export const sourceChanged: Predicate = (event) =>
  specOrMetadataChanged(event) ||
  (!event.object.metadata.deletionTimestamp && !hasFinalizer(event.object, HUB_REPLICATOR_FINALIZER));

/** The source events acted on, per kind: a context's decision too, where its first copy awaits it. */
function sourcePredicates(config: ReplicatorConfig): Record<ReplicatedKind, Predicate> {
  return {
    NetworkContext: config.contextCopiesAwaitSubnets
      ? (event) => sourceChanged(event) || decisionChanged(event)
      : sourceChanged,
    Subnet: sourceChanged,
  };
}

/** A Subnet copy's arrival wakes the context it belongs to, whose first copy may await it. */
function contextOfSubnetCopy(event: InformerEvent<Replicated>): ReplicaKey[] {
  if (event.type !== 'ADDED') return [];
  const key = keyOfCopy(event.object, 'Subnet');
  const context = (event.object as Subnet).spec?.networkContext?.name;
  return key && context ? [{ ...key, kind: 'NetworkContext', name: context }] : [];
}

export function triggers(
  hubCopies: Record<ReplicatedKind, Informer<Replicated>>,
  projects: ProjectPlaneWatch<ReplicaKey, ProjectView>,
  config: ReplicatorConfig,
): Trigger<ReplicaKey>[] {
  const copyKeys = (kind: ReplicatedKind) => (event: InformerEvent<Replicated>) => {
    const keys = [keyOfCopy(event.object, kind), event.previous && keyOfCopy(event.previous, kind)];
    return keys.filter((key): key is ReplicaKey => key !== undefined);
  };
  return [
    ...REPLICATED_KINDS.map((kind) => watches(hubCopies[kind], copyKeys(kind), specOrMetadataChanged)),
    ...(config.contextCopiesAwaitSubnets ? [watches(hubCopies.Subnet, contextOfSubnetCopy)] : []),
    projects.trigger(),
  ];
}

function watchProject(
  plane: EngagedPlane,
  hubCopies: Record<ReplicatedKind, Informer<Replicated>>,
  config: ReplicatorConfig,
): PlaneWatch<ReplicaKey, ProjectView> {
  const changed = sourcePredicates(config);
  const sourceInformers = {
    NetworkContext: plane.informer<Replicated>(resourceIdOf(REPLICATED.NetworkContext)),
    Subnet: plane.informer<Replicated>(resourceIdOf(REPLICATED.Subnet)),
  };
  const namespaces = plane.informer(NAMESPACES);
  const sourceKey = (kind: ReplicatedKind, object: KubeObject): ReplicaKey => ({
    project: plane.project,
    kind,
    namespace: object.metadata.namespace!,
    name: object.metadata.name!,
  });
  const everyKey = (): ReplicaKey[] =>
    REPLICATED_KINDS.flatMap((kind) => [
      ...sourceInformers[kind].store.list().map((source) => sourceKey(kind, source)),
      ...hubCopies[kind].store
        .list()
        .map((copy) => keyOfCopy(copy, kind))
        .filter((key): key is ReplicaKey => key?.project === plane.project),
    ]);
  return {
    view: {
      kinds: {
        NetworkContext: {
          sources: sourceInformers.NetworkContext.store,
          sourceClient: plane.client<Replicated>(resourceIdOf(networkContextKind)),
        },
        Subnet: {
          sources: sourceInformers.Subnet.store,
          sourceClient: plane.client<Replicated>(resourceIdOf(subnetKind)),
        },
      },
      namespaces: namespaces.store,
    },
    informers: [sourceInformers.NetworkContext, sourceInformers.Subnet, namespaces],
    triggers: REPLICATED_KINDS.map((kind) =>
      watches(sourceInformers[kind], (event) => [sourceKey(kind, event.object)], changed[kind]),
    ),
    keys: everyKey,
  };
}

export const replicatorControllerWith = (config: ReplicatorConfig): ControllerDefinition => ({
  name,
  build(ctx: ManagerContext): Controller<ReplicaKey> {
    const hubCopies = {
      NetworkContext: ctx.hub.informer<Replicated>(resourceIdOf(networkContextKind), {
        indexes: copyIndexes.NetworkContext,
      }),
      Subnet: ctx.hub.informer<Replicated>(resourceIdOf(subnetKind), { indexes: copyIndexes.Subnet }),
    };
    const projects = new ProjectPlaneWatch<ReplicaKey, ProjectView>(ctx.projects, (plane) =>
      watchProject(plane, hubCopies, config),
    );
    const deps: ReplicatorDeps = {
      config,
      hub: {
        NetworkContext: {
          copies: hubCopies.NetworkContext.store,
          client: ctx.hub.client<Replicated>(resourceIdOf(networkContextKind)),
        },
        Subnet: {
          copies: hubCopies.Subnet.store,
          client: ctx.hub.client<Replicated>(resourceIdOf(subnetKind)),
        },
      },
      hubNamespaces: ctx.hub.informer(NAMESPACES).store,
      hubNamespacesClient: ctx.hub.client(NAMESPACES),
      projects,
    };
    const controller = new Controller<ReplicaKey>({
      name,
      reconcile: (key, _log, pass) => reconcile(key, deps, pass),
      toString: replicaKeyString,
      fromString: replicaKeyFromString,
      planeOf: (key) => projectPlaneName(key.project),
      workers: ROUND_TRIP_WORKERS,
      clock: ctx.clock,
      log: ctx.log,
      metrics: ctx.metrics,
      // The store lags the write a source's finalizer lost to, and hub copies are written into
      // hub namespaces no watch of the replicator reports: a stale write is redone from the
      // server's copy, then backs off.
      onStale: 'reread',
    });
    for (const trigger of triggers(hubCopies, projects, config)) controller.watch(trigger);
    return controller;
  },
});

/** The replicator as §6 has it: every copy made at once. */
export const replicatorController = replicatorControllerWith({ contextCopiesAwaitSubnets: false });

/** The replicator beside the networkcontext controller, as the manager runs it. */
export const managerReplicatorController = replicatorControllerWith({ contextCopiesAwaitSubnets: true });
