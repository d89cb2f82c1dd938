/**
 * Network controller (controllers.md §3): holds a network's IPv6 range (its /48) through an IPAM
 * ScopeRange claim while the network lives, publishes it in `status.ipam`, and on deletion
 * removes the network's contexts first and gives the range back last.
 *
 * Guarantees:
 * - the claim is `network-<uid>` in the network's namespace, so every pass and every restart
 *   finds the one claim an earlier pass made;
 * - a deleting network keeps `network-controller` until every context that belongs to it (by
 *   controller reference UID, else by `spec.network.name`) is gone, and keeps
 *   `network-prefix-release` until IPAM has let go of the range;
 * - `Ready` follows `IPAMAllocated` whenever that exists; status is written once per pass and only
 *   when it changed; no owner references are written.
 * Caveat: a /48 held earlier stays held after the network stops asking for one (Policy mode, or
 * IPv6 dropped), until the network is deleted.
 */
import type { IPClaim } from '../../apis/ipam/v1alpha1/ip-claim.ts';
import { networkPrefixClaimName } from '../../apis/ipam/v1alpha1/ip-claim.ts';
import { NETWORK_CLASS } from '../../apis/ipam/v1alpha1/default-set.ts';
import { ipPoolKind, type IPPool } from '../../apis/ipam/v1alpha1/ip-pool.ts';
import { networkScope } from '../../apis/ipam/v1alpha1/scope.ts';
import {
  NETWORK_CONTROLLER_FINALIZER,
  NETWORK_PREFIX_RELEASE_FINALIZER,
  networkKind,
  networkMessages,
  NetworkReason,
  type Network,
} from '../../apis/networking/v1alpha/network.ts';
import { networkContextKind, type NetworkContext } from '../../apis/networking/v1alpha/network-context.ts';
import type { ResourceClient } from '../../client/types.ts';
import type { Clock } from '../../runtime/clock.ts';
import type { Outcome } from '../../runtime/controller.ts';
import type { InformerEvent, ObjectStore } from '../../runtime/informer-contract.ts';
import { ensureFinalizer, hasFinalizer, removeFinalizer } from '../../runtime/finalizer.ts';
import type { EngagedPlane } from '../../runtime/planes.ts';
import { forObject, watches } from '../../runtime/triggers.ts';
import type { ControllerDefinition } from '../../runtime/manager-context.ts';
import { planeIpam, type IpamAccess } from '../shared/ipam-access.ts';
import { holdRange, releaseRange, type RangeHold } from '../shared/range-hold.ts';
import { keyOfObjectIn, projectObjectKeyOf, type ProjectObjectKey } from '../shared/project-object-key.ts';
import { projectObjectDefinition } from '../shared/project-object-controller.ts';
import type { PlaneWatch, ProjectPlaneWatch } from '../shared/project-plane-watch.ts';
import { resourceIdOf } from '../../runtime/resource-ids.ts';
import { reportIpam, type IpamReport } from '../shared/ipam-status.ts';

export const name = 'network';

type NetworkIpam = NonNullable<Network['status']>['ipam'];

export interface NetworkConfig {
  /** The IPClass of a network's range; empty: no network claims anything. */
  networkClass: string;
}

/** What one reconcile reads and writes in an engaged project plane. */
export interface NetworkPlaneView {
  project: string;
  networks: ObjectStore<Network>;
  contexts: ObjectStore<NetworkContext>;
  networkClient: ResourceClient<Network>;
  contextClient: ResourceClient<NetworkContext>;
  ipam: IpamAccess;
}

export interface NetworkDeps {
  planes: ProjectPlaneWatch<ProjectObjectKey, NetworkPlaneView>;
  config: NetworkConfig;
  clock: Clock;
}

export async function reconcile(key: ProjectObjectKey, deps: NetworkDeps): Promise<Outcome | void> {
  const plane = deps.planes.view(key.project);
  if (!plane) return; // engagement and the first list bring the key back
  const stored = plane.networks.get(key.namespace, key.name);
  if (!stored) return;
  const network = await finalizeContexts(stored, plane);
  if (!network) return; // context events bring the key back
  if (network.metadata.deletionTimestamp) return releasePrefix(network, plane, deps);
  if (deps.config.networkClass === '') {
    return report(network, plane, deps, { readyMessage: networkMessages.noAddressService });
  }
  if (!claimsAddressSpace(network)) {
    return report(network, plane, deps, { readyMessage: networkMessages.claimsNoAddressSpace });
  }
  return holdPrefix(network, plane, deps);
}

/** Step 2: the network-controller finalizer; undefined while belonging contexts remain. */
async function finalizeContexts(network: Network, plane: NetworkPlaneView): Promise<Network | undefined> {
  if (!network.metadata.deletionTimestamp) {
    return ensureFinalizer(plane.networkClient, network, NETWORK_CONTROLLER_FINALIZER);
  }
  if (!hasFinalizer(network, NETWORK_CONTROLLER_FINALIZER)) return network;
  const belonging = plane.contexts.list(network.metadata.namespace).filter((c) => belongsTo(c, network));
  await Promise.all(
    belonging
      .filter((context) => !context.metadata.deletionTimestamp)
      .map((context) =>
        plane.contextClient.delete(context.metadata.name!, context.metadata.namespace, {
          preconditions: { uid: context.metadata.uid },
        }),
      ),
  );
  if (belonging.length > 0) return undefined;
  return removeFinalizer(plane.networkClient, network, NETWORK_CONTROLLER_FINALIZER);
}

/** A context with a controller reference belongs by its UID; one without, by the network's name. */
export function belongsTo(context: NetworkContext, network: Network): boolean {
  const controller = context.metadata.ownerReferences?.find((ref) => ref.controller === true);
  if (controller) return controller.uid === network.metadata.uid;
  return context.spec.network.name === network.metadata.name;
}

/** Only an Auto-mode IPv6 network holds a /48. */
export function claimsAddressSpace(network: Network): boolean {
  return network.spec.ipam.mode === 'Auto' && (network.spec.ipFamilies ?? []).includes('IPv6');
}

/** Step 3: a deleting network gives its range back, then lets go. */
function releasePrefix(
  network: Network,
  plane: NetworkPlaneView,
  deps: NetworkDeps,
): Promise<Outcome | void> {
  return releaseRange(network, prefixRange(plane, deps), deps.config.networkClass !== '');
}

/** Steps 6–9: hold the range and publish it, or report why it is not held. */
async function holdPrefix(
  stored: Network,
  plane: NetworkPlaneView,
  deps: NetworkDeps,
): Promise<Outcome | void> {
  const hold = await holdRange(stored, prefixRange(plane, deps));
  if (!hold.held) return hold.outcome;
  await report(hold.object, plane, deps, {
    ipamAllocated: {
      status: 'True',
      reason: NetworkReason.Allocated,
      message: networkMessages.allocated(hold.cidr),
    },
    ipam: { ipv6Prefix: hold.cidr, ipv6PrefixRef: hold.ref },
  });
}

/** How a network holds its /48 (range-hold.ts). */
function prefixRange(plane: NetworkPlaneView, deps: NetworkDeps): RangeHold<Network> {
  return {
    client: plane.networkClient,
    ipam: plane.ipam,
    finalizer: NETWORK_PREFIX_RELEASE_FINALIZER,
    className: deps.config.networkClass,
    claimName: (network) => networkPrefixClaimName(network.metadata.uid!),
    heldRef: (network) => network.status?.ipam?.ipv6PrefixRef,
    scope: (network) => networkScope(network.metadata.name!),
    messages: networkMessages,
    reportAllocated: (network, ipamAllocated) => report(network, plane, deps, { ipamAllocated }),
  };
}

/** Reports `outcome` (ipam-status.ts). */
async function report(
  network: Network,
  plane: NetworkPlaneView,
  deps: NetworkDeps,
  outcome: Omit<IpamReport<NetworkIpam>, 'readyMessage'> & { readyMessage?: string },
): Promise<void> {
  const readyMessage = outcome.readyMessage ?? '';
  await reportIpam(plane.networkClient, network, { ...outcome, readyMessage }, deps.clock.now());
}

// ---- triggers -------------------------------------------------------------------------------

const NETWORKS = resourceIdOf(networkKind);
const NETWORK_CONTEXTS = resourceIdOf(networkContextKind);
const IP_POOLS = resourceIdOf(ipPoolKind);

/** The network a context is reported to: its controller Network, else the network it names. */
function ownerOfContext(context: NetworkContext): string {
  const controller = context.metadata.ownerReferences?.find(
    (ref) => ref.controller === true && ref.kind === networkKind.kind,
  );
  return controller?.name ?? context.spec.network.name;
}

function networksOfContext(project: string) {
  return (event: InformerEvent<NetworkContext>): ProjectObjectKey[] => {
    const owners = new Set([event.object, event.previous].filter((c) => c !== undefined).map(ownerOfContext));
    return [...owners].map((owner) => projectObjectKeyOf(project, event.object.metadata.namespace, owner));
  };
}

/** A range claim scoped to a Network wakes that network (a refused release retries at once). */
function networkOfClaim(project: string) {
  return (event: InformerEvent<IPClaim>): ProjectObjectKey[] => {
    const { target, scope } = event.object.spec;
    const network = scope?.network;
    if (target !== 'ScopeRange' || network?.kind !== networkKind.kind) return [];
    return [projectObjectKeyOf(project, event.object.metadata.namespace, network.name)];
  };
}

/**
 * A range carved for a Network's scope that goes wakes that network: what lies inside a /48 is
 * its subnet ranges, and the last one freed (by an interface address released after its context
 * gave its /64 back, which provisions it again) is what a refused release waits for — else only
 * the backstop would retry it, a minute later.
 */
function networksOfPool(project: string, networks: ObjectStore<Network>) {
  return (event: InformerEvent<IPPool>): ProjectObjectKey[] => {
    const network = event.object.spec.scope?.network;
    if (event.type !== 'DELETED' || network?.kind !== networkKind.kind) return [];
    // Pools are cluster-wide and name a network without its namespace: every network of the name.
    return networks
      .list()
      .filter((n) => n.metadata.name === network.name)
      .map((n) => projectObjectKeyOf(project, n.metadata.namespace, network.name));
  };
}

export function watchPlane(plane: EngagedPlane): PlaneWatch<ProjectObjectKey, NetworkPlaneView> {
  const project = plane.project;
  const networks = plane.informer<Network>(NETWORKS);
  const contexts = plane.informer<NetworkContext>(NETWORK_CONTEXTS);
  const ipam = planeIpam(plane);
  const pools = plane.informer<IPPool>(IP_POOLS);
  return {
    view: {
      project,
      networks: networks.store,
      contexts: contexts.store,
      networkClient: plane.client<Network>(NETWORKS),
      contextClient: plane.client<NetworkContext>(NETWORK_CONTEXTS),
      ipam: ipam.access,
    },
    informers: [networks, contexts, ipam.informer, pools],
    triggers: [
      forObject(networks, keyOfObjectIn(project)),
      watches(contexts, networksOfContext(project)),
      watches(ipam.informer, networkOfClaim(project)),
      watches(pools, networksOfPool(project, networks.store)),
    ],
    keys: () => networks.store.list().map(keyOfObjectIn(project)),
  };
}

export function networkControllerWith(config: NetworkConfig): ControllerDefinition {
  return projectObjectDefinition(name, watchPlane, (key, planes, ctx) =>
    reconcile(key, { planes, config, clock: ctx.clock }),
  );
}

/** The network controller with the default network class, `datum-network-v6`. */
export const networkController = networkControllerWith({ networkClass: NETWORK_CLASS });
