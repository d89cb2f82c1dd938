/**
 * NetworkContext controller (controllers.md §4): holds the IPv6 range of a network in one
 * location (its /64) through an IPAM ScopeRange claim, publishes it on the Subnet
 * `<context>-ipv6`, and gives it back when the context is deleted. Only project-plane contexts
 * are reconciled; hub and cell copies never are.
 *
 * Guarantees:
 * - the claim is `networkcontext-<uid>` in the context's namespace, so every pass and every
 *   restart finds the one claim an earlier pass made;
 * - the held range is published on the Subnet (subnet-publication.ts); the range is never
 *   written into the context's status, only a reference to the Subnet and to the claim;
 * - a deleting context keeps `networkcontext-subnet-release` until IPAM has let go of the range,
 *   and reports `RangeOccupied` on `IPAMAllocated` and `Ready` while it cannot; the deletion of
 *   an IPClaim or an IPAllocation of its namespace wakes it to try again (not the backstop);
 * - `Ready` follows `IPAMAllocated` whenever that exists; every write is skipped when the stored
 *   object already holds its value.
 * Caveat: when a context stops carrying IPv6, the held /64 and the Subnet stay until the context
 * is deleted, and `IPAMAllocated` keeps its last value. A context that states no families is
 * treated as one that does not carry IPv6.
 */
import { SUBNET_CLASS } from '../../apis/ipam/v1alpha1/default-set.ts';
import { ipAllocationKind, type IPAllocation } from '../../apis/ipam/v1alpha1/ip-allocation.ts';
import { subnetPrefixClaimName, type IPClaim } from '../../apis/ipam/v1alpha1/ip-claim.ts';
import { networkLocationScope } from '../../apis/ipam/v1alpha1/scope.ts';
import {
  NETWORKCONTEXT_SUBNET_RELEASE_FINALIZER,
  networkContextKind,
  networkContextMessages,
  NetworkContextReason,
  type NetworkContext,
} from '../../apis/networking/v1alpha/network-context.ts';
import { subnetKind, type Subnet } from '../../apis/networking/v1alpha/subnet.ts';
import type { ResourceClient } from '../../client/types.ts';
import type { Clock } from '../../runtime/clock.ts';
import type { Outcome } from '../../runtime/controller.ts';
import type { InformerEvent, ObjectStore } from '../../runtime/informer-contract.ts';
import type { EngagedPlane } from '../../runtime/planes.ts';
import { forObject, owns, watches } from '../../runtime/triggers.ts';
import type { ControllerDefinition } from '../../runtime/manager-context.ts';
import { planeIpam, type IpamAccess } from '../shared/ipam-access.ts';
import { holdRange, releaseRange, type RangeHold } from '../shared/range-hold.ts';
import { keyOfObjectIn, projectObjectKeyOf, type ProjectObjectKey } from '../shared/project-object-key.ts';
import { projectObjectDefinition } from '../shared/project-object-controller.ts';
import type { PlaneWatch, ProjectPlaneWatch } from '../shared/project-plane-watch.ts';
import { resourceIdOf } from '../../runtime/resource-ids.ts';
import { reportIpam, type IpamReport } from '../shared/ipam-status.ts';
import { publishSubnet } from './subnet-publication.ts';

export const name = 'networkcontext';

export interface NetworkContextConfig {
  /** The IPClass of a location's range; empty: no context claims anything. */
  subnetClass: string;
  /**
   * The finalizers a new Subnet carries from its create: the replicator's, where it runs beside
   * this controller (processes/manager.ts), so it need not add it in a write of its own.
   */
  subnetFinalizers?: readonly string[];
}

/** Whether a context claims a range of its location under `config` (step 3). */
export function claimsSubnet(config: NetworkContextConfig, spec: NetworkContext['spec']): boolean {
  return config.subnetClass !== '' && (spec.ipFamilies ?? []).includes('IPv6');
}

/** What one reconcile reads and writes in an engaged project plane. */
export interface NetworkContextPlaneView {
  project: string;
  contexts: ObjectStore<NetworkContext>;
  subnets: ObjectStore<Subnet>;
  contextClient: ResourceClient<NetworkContext>;
  subnetClient: ResourceClient<Subnet>;
  ipam: IpamAccess;
}

export interface NetworkContextDeps {
  planes: ProjectPlaneWatch<ProjectObjectKey, NetworkContextPlaneView>;
  config: NetworkContextConfig;
  clock: Clock;
}

export async function reconcile(key: ProjectObjectKey, deps: NetworkContextDeps): Promise<Outcome | void> {
  const plane = deps.planes.view(key.project);
  if (!plane) return; // engagement and the first list bring the key back
  const context = plane.contexts.get(key.namespace, key.name);
  if (!context) return;
  if (context.metadata.deletionTimestamp) return releaseSubnet(context, plane, deps);
  if (!claimsSubnet(deps.config, context.spec)) return report(context, plane, deps, {});
  return holdSubnet(context, plane, deps);
}

/** Step 2: a deleting context gives its range back, then lets go. */
function releaseSubnet(
  context: NetworkContext,
  plane: NetworkContextPlaneView,
  deps: NetworkContextDeps,
): Promise<Outcome | void> {
  return releaseRange(context, subnetRange(plane, deps));
}

/** Steps 4–8: hold the range, publish it on the Subnet, or report why it is not held. */
async function holdSubnet(
  stored: NetworkContext,
  plane: NetworkContextPlaneView,
  deps: NetworkContextDeps,
): Promise<Outcome | void> {
  const hold = await holdRange(stored, subnetRange(plane, deps));
  if (!hold.held) return hold.outcome;
  const context = hold.object;
  const subnetName = await publishSubnet(context, hold.cidr, {
    subnets: plane.subnets,
    client: plane.subnetClient,
    now: () => deps.clock.now(),
    finalizers: deps.config.subnetFinalizers ?? [],
  });
  await report(context, plane, deps, {
    ipamAllocated: {
      status: 'True',
      reason: NetworkContextReason.Allocated,
      message: networkContextMessages.allocated(hold.cidr),
    },
    ipam: { ipv6SubnetRef: { name: subnetName }, ipv6ClaimRef: hold.ref },
  });
}

/** How a context holds its /64 (range-hold.ts). */
function subnetRange(plane: NetworkContextPlaneView, deps: NetworkContextDeps): RangeHold<NetworkContext> {
  return {
    client: plane.contextClient,
    ipam: plane.ipam,
    finalizer: NETWORKCONTEXT_SUBNET_RELEASE_FINALIZER,
    className: deps.config.subnetClass,
    claimName: (context) => subnetPrefixClaimName(context.metadata.uid!),
    heldRef: (context) => context.status?.ipam?.ipv6ClaimRef,
    scope: (context) => networkLocationScope(context.spec.network.name, context.spec.location.name),
    messages: networkContextMessages,
    reportAllocated: (context, ipamAllocated) => report(context, plane, deps, { ipamAllocated }),
  };
}

/** Reports `outcome` (ipam-status.ts); Ready needs no address space when IPAM was never asked. */
async function report(
  context: NetworkContext,
  plane: NetworkContextPlaneView,
  deps: NetworkContextDeps,
  outcome: Omit<IpamReport<NonNullable<NetworkContext['status']>['ipam']>, 'readyMessage'>,
): Promise<void> {
  const readyMessage = networkContextMessages.needsNoAddressSpace;
  await reportIpam(plane.contextClient, context, { ...outcome, readyMessage }, deps.clock.now());
}

// ---- triggers -------------------------------------------------------------------------------

const NETWORK_CONTEXTS = resourceIdOf(networkContextKind);
const SUBNETS = resourceIdOf(subnetKind);
const IP_ALLOCATIONS = resourceIdOf(ipAllocationKind);

/** Contexts by (namespace, network, location), from `spec`. */
const BY_PAIR = 'byPair';
const pairValue = (namespace: string | undefined, network: string, location: string): string =>
  JSON.stringify([namespace ?? '', network, location]);
const byPair = (context: NetworkContext): string[] => [
  pairValue(context.metadata.namespace, context.spec.network.name, context.spec.location.name),
];

/** A claim scoped to a network and a location wakes every context of that pair in its namespace. */
function contextsOfClaim(project: string, contexts: ObjectStore<NetworkContext>) {
  return (event: InformerEvent<IPClaim>): ProjectObjectKey[] => {
    const { network, location } = event.object.spec.scope ?? {};
    if (!network || !location) return [];
    const namespace = event.object.metadata.namespace;
    return contexts
      .byIndex(BY_PAIR, pairValue(namespace, network.name, location.name))
      .map((context) => projectObjectKeyOf(project, namespace, context.metadata.name!));
  };
}

/**
 * A deleted IPAllocation wakes every deleting context of its namespace: a retained address is the
 * last thing inside a range, and it goes after its IPClaim (controllers.md §10 "Releasing
 * addresses": the claim, then the allocation), so a release refused between the two writes
 * would otherwise wait for the backstop.
 */
function deletingContextsOfAllocation(project: string, contexts: ObjectStore<NetworkContext>) {
  return (event: InformerEvent<IPAllocation>): ProjectObjectKey[] => {
    if (event.type !== 'DELETED') return [];
    const namespace = event.object.metadata.namespace;
    return contexts
      .list(namespace)
      .filter((context) => context.metadata.deletionTimestamp !== undefined)
      .map((context) => projectObjectKeyOf(project, namespace, context.metadata.name!));
  };
}

export function watchPlane(plane: EngagedPlane): PlaneWatch<ProjectObjectKey, NetworkContextPlaneView> {
  const project = plane.project;
  const contexts = plane.informer<NetworkContext>(NETWORK_CONTEXTS, { indexes: { [BY_PAIR]: byPair } });
  const subnets = plane.informer<Subnet>(SUBNETS);
  const ipam = planeIpam(plane);
  const allocations = plane.informer<IPAllocation>(IP_ALLOCATIONS);
  return {
    view: {
      project,
      contexts: contexts.store,
      subnets: subnets.store,
      contextClient: plane.client<NetworkContext>(NETWORK_CONTEXTS),
      subnetClient: plane.client<Subnet>(SUBNETS),
      ipam: ipam.access,
    },
    informers: [contexts, subnets, ipam.informer, allocations],
    triggers: [
      forObject(contexts, keyOfObjectIn(project)),
      owns(subnets, networkContextKind.kind, (owner, subnet) =>
        projectObjectKeyOf(project, subnet.metadata.namespace, owner.name),
      ),
      watches(ipam.informer, contextsOfClaim(project, contexts.store)),
      watches(allocations, deletingContextsOfAllocation(project, contexts.store)),
    ],
    keys: () => contexts.store.list().map(keyOfObjectIn(project)),
  };
}

export function networkContextControllerWith(config: NetworkContextConfig): ControllerDefinition {
  return projectObjectDefinition(name, watchPlane, (key, planes, ctx) =>
    reconcile(key, { planes, config, clock: ctx.clock }),
  );
}

/** The networkcontext controller with the default subnet class, `datum-subnet-v6`. */
export const networkContextController = networkContextControllerWith({ subnetClass: SUBNET_CLASS });
