/**
 * Claim controller (controllers.md §10): turns a NetworkInterfaceClaim into a NetworkInterface
 * holding addresses from the project's IPAM on the claim's network in this cell's location, and
 * keeps both current while the context, its Subnets and the identity change.
 *
 * Guarantees:
 * - nothing reaches IPAM before the identity, the namespace's project, the context and its
 *   families have been checked; addresses are allocated all or none (allocation.ts);
 * - an interface is adopted (claim-bind.ts) only when it satisfies the claim, and a lost
 *   interface is rebuilt on the same IPClaims; a missing allocation is reported once per finding
 *   and never repaired;
 * - a refusal an event will end — the identity, the namespace's labels, the context and its
 *   families — waits for that event (controllers.md §0: the backstop exists only where no watch
 *   covers the condition); a refusal from IPAM, which has no watch, or by an interface (whose
 *   events wake only the claims it names) ends in the 60 s backstop;
 * - no claim is judged before the identity controller's first answer: until then a live claim
 *   waits, and the answer wakes every claim. A deleting claim is released without one.
 */
import { jsonEqual } from '../../apis/common/json-equal.ts';
import type { Logger } from 'pino';
import { ClaimReason, claimRefusalMessages } from '../../apis/networking/v1alpha/claim-refusals.ts';
import { networkContextName, type NetworkContext } from '../../apis/networking/v1alpha/network-context.ts';
import {
  claimedInterfaceName,
  NETWORKINTERFACECLAIM_RELEASE_FINALIZER,
  type NetworkInterfaceClaim,
} from '../../apis/networking/v1alpha/network-interface-claim.ts';
import type { NetworkInterface } from '../../apis/networking/v1alpha/network-interface.ts';
import type { IPClaim } from '../../apis/ipam/v1alpha1/ip-claim.ts';
import { NETWORK_LABEL } from '../../apis/common/labels.ts';
import type { Subnet } from '../../apis/networking/v1alpha/subnet.ts';
import { isAlreadyExists } from '../../client/errors.ts';
import type { KubeObject } from '../../client/types.ts';
import type { Clock } from '../../runtime/clock.ts';
import { Controller, done, type Outcome } from '../../runtime/controller.ts';
import type { InformerEvent, ObjectStore } from '../../runtime/informer-contract.ts';
import { ensureFinalizer } from '../../runtime/finalizer.ts';
import { forObject, generationChanged, watches, type Predicate } from '../../runtime/triggers.ts';
import type { ControllerDefinition } from '../../runtime/manager-context.ts';
import { backstop } from '../../runtime/backstop.ts';
import { routeFromStore } from '../shared/hub-routing.ts';
import { patchStatus } from '../../runtime/writes.ts';
import { claimFamilies } from './address-requests.ts';
import { allocateAll, checkAllocations } from './allocation.ts';
import { allocationEvents, type AllocationEvents } from './allocation-events.ts';
import {
  BY_NETWORK,
  cellView,
  networkValue,
  objectKeyOf,
  parseObjectKey,
  type CellContext,
  type ObjectKey,
} from './cell-context.ts';
import type { CellMetrics } from './cell-metrics.ts';
import { adopt, adoptionRefusal, newInterface, newInterfaceRequests } from './claim-bind.ts';
import { refusedConditions, type Refusal } from './claim-conditions.ts';
import { releaseClaim, type ReleaseDeps } from './claim-release.ts';
import { desiredAddresses, syncInterfaceSpec, writeClaimStatus, writeInterfaceStatus } from './claim-sync.ts';
import { holdNetwork } from './context-hold.ts';
import type { IdentityHolder } from './identity.ts';
import type { ProjectIpam } from './ipam-directory.ts';

export const name = 'claim';

export interface ClaimDeps extends ReleaseDeps {
  claims: ObjectStore<NetworkInterfaceClaim>;
  subnets: ObjectStore<Subnet>;
  identity: IdentityHolder;
  events: AllocationEvents;
  metrics: CellMetrics;
  clock: Clock;
}

export async function reconcile(key: ObjectKey, deps: ClaimDeps, log: Logger): Promise<Outcome> {
  const { namespace, name: claimName } = parseObjectKey(key);
  const stored = deps.claims.get(namespace, claimName);
  if (!stored) return done();
  if (stored.metadata.deletionTimestamp) {
    await releaseClaim(stored, deps, log);
    return done();
  }
  const identity = deps.identity.current();
  if (!identity) return done(); // the identity's first answer wakes every claim
  const claim = await ensureFinalizer(deps.claimClient, stored, NETWORKINTERFACECLAIM_RELEASE_FINALIZER);
  if (claim !== stored) return done(); // the finalizer's event wakes this claim again
  if (!identity.resolved) return reject(claim, identity, deps, WATCHED);
  const route = routeFromStore(deps.namespaces, namespace);
  if (!route.resolved)
    return reject(claim, { reason: ClaimReason.ProjectUnresolved, message: route.message }, deps, WATCHED);
  const network = claim.spec.network.name;
  const location = identity.location;
  const contextName = networkContextName(network, location);
  const context = deps.contexts.get(namespace, contextName);
  if (!context)
    return reject(
      claim,
      {
        reason: ClaimReason.NetworkNotAvailableInLocation,
        message: claimRefusalMessages.networkNotAvailable(network, location, contextName, namespace),
      },
      deps,
      WATCHED,
    );
  const carried = context.spec.ipFamilies ?? [];
  if (carried.length === 0)
    return reject(
      claim,
      {
        reason: ClaimReason.AddressFamiliesUnknown,
        message: claimRefusalMessages.familiesUnknown(contextName, network, location),
      },
      deps,
      WATCHED,
    );
  const uncarried = claimFamilies(claim).find((family) => !carried.includes(family));
  if (uncarried)
    return reject(
      claim,
      {
        reason: ClaimReason.AddressFamilyNotCarried,
        message: claimRefusalMessages.familyNotCarried(network, location, uncarried),
      },
      deps,
      WATCHED,
    );
  const ipam = deps.ipam.forProject(route.project);
  const bound = await bind(
    claim,
    context,
    { ipam, projectNamespace: route.projectNamespace, location },
    deps,
    log,
  );
  if ('refusal' in bound) return reject(claim, bound.refusal, deps, bound.watched);
  await holdNetwork(namespace, network, deps, bound.iface);
  return report(claim, bound, context, ipam, route.projectNamespace, deps);
}

interface Placement {
  ipam: ProjectIpam;
  projectNamespace: string;
  location: string;
}

/** Step 8: the interface this claim holds, adopted or newly built. */
async function bind(
  claim: NetworkInterfaceClaim,
  context: NetworkContext,
  placement: Placement,
  deps: ClaimDeps,
  log: Logger,
): Promise<{ iface: NetworkInterface; ipClaims: IPClaim[] } | { refusal: Refusal; watched: boolean }> {
  const namespace = claim.metadata.namespace!;
  const interfaceName = claimedInterfaceName(claim.metadata.name!, claim.spec);
  const existing = deps.interfaces.get(namespace, interfaceName);
  if (existing) {
    // An interface's events wake only the claims it names, not one refused for wanting it.
    const refusal = adoptionRefusal(existing, claim);
    if (refusal) return { refusal, watched: false };
    return { iface: await adopt(existing, claim.metadata.name!, deps.interfaceClient), ipClaims: [] };
  }
  const planned = await newInterfaceRequests(claim, placement.ipam);
  if ('refusal' in planned) return { refusal: planned.refusal, watched: false };
  const allocated = await allocateAll(
    claim.metadata.name!,
    planned.requests,
    {
      ipam: placement.ipam,
      cell: deps.cell,
      projectNamespace: placement.projectNamespace,
      network: claim.spec.network.name,
      location: placement.location,
      reclaimPolicy: claim.spec.reclaimPolicy ?? 'Delete',
    },
    log,
  );
  if (!allocated.allocated) return { refusal: allocated.refusal, watched: false };
  try {
    const built = newInterface(claim, interfaceName, context, allocated.held);
    // Gateways known now are written with the interface rather than by a second write.
    const subnets = deps.subnets.list(namespace);
    built.spec.addresses = desiredAddresses(
      built.spec.addresses ?? [],
      claim,
      context.metadata.name!,
      subnets,
    ).addresses;
    return {
      iface: await deps.interfaceClient.create(built),
      ipClaims: allocated.held.map((held) => held.ipClaim),
    };
  } catch (err) {
    // The store is behind an interface that exists: its event wakes this claim again.
    if (isAlreadyExists(err))
      throw new Error(`network interface "${interfaceName}" appeared while it was built`, { cause: err });
    throw err;
  }
}

/**
 * Steps 10–13 on a bound interface; `ipClaims`: those step 8 read or created for it in this
 * reconcile, which step 10 does not read again.
 */
async function report(
  claim: NetworkInterfaceClaim,
  { iface: bound, ipClaims }: { iface: NetworkInterface; ipClaims: IPClaim[] },
  context: NetworkContext,
  ipam: ProjectIpam,
  projectNamespace: string,
  deps: ClaimDeps,
): Promise<Outcome> {
  const findings = await checkAllocations(bound, ipam, projectNamespace, deps.cell, ipClaims);
  // A finding is new unless the claim already reports it; read the claim itself, not the store,
  // which may not have seen the status the previous reconcile wrote.
  const current =
    findings.length === 0
      ? claim
      : await deps.claimClient.get(claim.metadata.name!, claim.metadata.namespace);
  const held = current?.status?.conditions?.find((condition) => condition.type === 'Allocated');
  const fresh = findings.filter((finding) => !(held?.status === 'False' && held.message === finding.message));
  const finding = findings.at(-1)?.message;
  const subnets = deps.subnets.list(claim.metadata.namespace);
  const synced = await syncInterfaceSpec(bound, claim, context, subnets, deps.interfaceClient);
  const now = deps.clock.now();
  const iface = await writeInterfaceStatus(
    synced.iface,
    context.metadata.name!,
    finding,
    now,
    deps.interfaceClient,
  );
  await writeClaimStatus(claim, iface, finding, synced.gatewayRefusal, now, deps.claimClient);
  // Only once the claim reports the finding: a write refused as stale retries without an event.
  for (const { note } of fresh) {
    await deps.events.missing(claim, iface, note);
    deps.metrics.missingAllocations.inc({ project: ipam.project });
  }
  return synced.gatewayRefusal === undefined ? done() : backstop();
}

/** A refusal whose end a watch reports: no backstop behind it. */
const WATCHED = true;

/**
 * §10 "Reject": Ready (and, while unbound, Bound and Allocated) False; the interface untouched.
 * The backstop follows only a refusal no watch can end (`watched` false: IPAM's).
 */
async function reject(
  claim: NetworkInterfaceClaim,
  refusal: Refusal,
  deps: ClaimDeps,
  watched: boolean,
): Promise<Outcome> {
  const conditions = refusedConditions(
    claim.status?.conditions,
    refusal,
    claim.status?.networkInterfaceRef !== undefined,
    claim.metadata.generation,
    deps.clock.now(),
  );
  await patchStatus(deps.claimClient, claim, { conditions });
  return watched ? done() : backstop();
}

/** Every claim in the context's namespace on its network (the §10 index). */
export function claimsOfContext(claims: ObjectStore<NetworkInterfaceClaim>) {
  return (event: InformerEvent<NetworkContext>): ObjectKey[] =>
    claims
      .byIndex(BY_NETWORK, networkValue(event.object.metadata.namespace, event.object.spec.network.name))
      .map(keyOfClaim);
}

function claimsOfSubnet(claims: ObjectStore<NetworkInterfaceClaim>) {
  return (event: InformerEvent<Subnet>): ObjectKey[] => {
    const namespace = event.object.metadata.namespace;
    const network = event.object.metadata.labels?.[NETWORK_LABEL];
    const found =
      network === undefined
        ? claims.list(namespace)
        : claims.byIndex(BY_NETWORK, networkValue(namespace, network));
    return found.map(keyOfClaim);
  };
}

function claimsOfInterface(event: InformerEvent<NetworkInterface>): ObjectKey[] {
  const namespace = event.object.metadata.namespace;
  const holders = new Set(
    [event.object.spec.claimRef?.name, event.previous?.spec.claimRef?.name].filter((n): n is string => !!n),
  );
  return [...holders].map((holder) => objectKeyOf(namespace, holder));
}

function claimsOfNamespace(claims: ObjectStore<NetworkInterfaceClaim>) {
  return (event: InformerEvent<KubeObject>): ObjectKey[] =>
    claims.list(event.object.metadata.name).map(keyOfClaim);
}

/** The data-plane conditions: the only part of a claim's status the controller reads. */
const DATA_PLANE_CONDITIONS: readonly string[] = ['Prepared', 'Programmed'];

function readInputs(claim: NetworkInterfaceClaim): unknown {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = claim.metadata as Record<string, unknown>;
  const dataPlane = (claim.status?.conditions ?? []).filter((c) => DATA_PLANE_CONDITIONS.includes(c.type));
  return { metadata, spec: claim.spec, dataPlane };
}

/**
 * Passes every claim event but a MODIFIED that changed only what this controller writes (its
 * status, but for the data-plane conditions): its own status write wakes nobody, so a refused
 * allocation is not tried again at once.
 */
export const inputsChanged: Predicate<NetworkInterfaceClaim> = (event) =>
  event.type !== 'MODIFIED' ||
  event.previous === undefined ||
  !jsonEqual(readInputs(event.previous), readInputs(event.object));

function keyOfClaim(claim: NetworkInterfaceClaim): ObjectKey {
  return objectKeyOf(claim.metadata.namespace, claim.metadata.name!);
}

export const claimController: ControllerDefinition<CellContext> = {
  name,
  build(ctx) {
    const view = cellView(ctx);
    ctx.cellMetrics.boundClaims = () =>
      view.claims.store
        .list()
        .filter((claim) => claim.status?.conditions?.some((c) => c.type === 'Bound' && c.status === 'True'))
        .length;
    const deps: ClaimDeps = {
      claims: view.claims.store,
      interfaces: view.interfaces.store,
      contexts: view.contexts.store,
      subnets: view.subnets.store,
      namespaces: view.namespaces.store,
      claimClient: view.claimClient,
      interfaceClient: view.interfaceClient,
      contextClient: view.contextClient,
      ipam: ctx.ipam,
      cell: ctx.cellName,
      identity: ctx.identity,
      events: allocationEvents({
        client: view.eventClient,
        instance: ctx.instance,
        clock: ctx.clock,
        log: ctx.log,
      }),
      metrics: ctx.cellMetrics,
      clock: ctx.clock,
    };
    const controller = new Controller<ObjectKey>({
      name,
      reconcile: (key, log) => reconcile(key, deps, log),
      // Its own status writes wake no claim (inputsChanged), so a write refused as stale is
      // judged again at once rather than left to an event that is filtered out.
      onStale: 'requeue',
      toString: (key) => key,
      fromString: (key) => (parseObjectKey(key), key),
      workers: 8,
      clock: ctx.clock,
      log: ctx.log,
      metrics: ctx.metrics,
    });
    controller.watch(forObject(view.claims, keyOfClaim, inputsChanged));
    controller.watch(watches(view.interfaces, claimsOfInterface));
    // Claims read a context's spec alone (a deleting context is still used): its finalizer and
    // status changes wake none of them.
    controller.watch(watches(view.contexts, claimsOfContext(view.claims.store), generationChanged));
    controller.watch(watches(view.subnets, claimsOfSubnet(view.claims.store)));
    controller.watch(watches(view.namespaces, claimsOfNamespace(view.claims.store)));
    controller.watch((enqueue) =>
      ctx.identity.onChange(() => {
        for (const claim of view.claims.store.list()) enqueue(keyOfClaim(claim));
      }),
    );
    return controller;
  },
};
