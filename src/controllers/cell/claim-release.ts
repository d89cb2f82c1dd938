/**
 * Releasing a deleted claim (controllers.md §10 "Release"): under `Retain` the interface is kept,
 * unbound and `Available`, with its addresses; under `Delete` its addresses are released and it is
 * deleted; a claim that holds no interface releases the IPClaims named after itself in this cell.
 *
 * Guarantees: the claim's finalizer is removed only after its interface and addresses are dealt
 * with and the context hold has been run; no identity is needed, so a cell that lost its location
 * can still delete claims; a retained interface's addresses never reach IPAM.
 * A claim deleted after its IPClaims were made but before its interface was (a kill in between)
 * releases them, retained IPAllocations included (scenario 134), whether or not it ever bound —
 * except an IPClaim that backs an existing interface (one retained from an earlier claim of the
 * same name), which stays with that interface. The claim's interface is read from the API, not
 * the store, so one created a moment ago is never mistaken for absent.
 * A `Retain` claim whose interface is already being deleted releases its addresses as `Delete`
 * would (the spec is silent; S136): the interface controller, which let that interface go while
 * the claim still lived, left them to the claim, and retaining them would leave them to nobody.
 */
import type { Logger } from 'pino';
import {
  claimedInterfaceName,
  NETWORKINTERFACECLAIM_RELEASE_FINALIZER,
  type NetworkInterfaceClaim,
} from '../../apis/networking/v1alpha/network-interface-claim.ts';
import {
  NETWORKINTERFACE_RELEASE_FINALIZER,
  type NetworkInterface,
} from '../../apis/networking/v1alpha/network-interface.ts';
import type { ResourceClient } from '../../client/types.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';
import { hasFinalizer, removeFinalizer } from '../../runtime/finalizer.ts';
import { routeFromStore } from '../shared/hub-routing.ts';
import { patchStatus } from '../../runtime/writes.ts';
import { addressClaimName } from '../../apis/ipam/v1alpha1/ip-claim.ts';
import { allocationOwner, claimDiscriminators, heldAddresses } from './address-requests.ts';
import { releaseInterfaceIpClaims, releaseIpClaims } from './allocation.ts';
import { holdNetwork, type HoldDeps } from './context-hold.ts';
import type { IpamDirectory, ProjectIpam } from './ipam-directory.ts';

export interface ReleaseDeps extends HoldDeps {
  namespaces: ObjectStore;
  claimClient: ResourceClient<NetworkInterfaceClaim>;
  interfaceClient: ResourceClient<NetworkInterface>;
  ipam: IpamDirectory;
  /** This cell's name: part of every IPClaim's name. */
  cell: string;
}

export const unroutableRelease = (owner: string, namespace: string, why: string): string =>
  `cannot release the addresses of "${owner}" in namespace "${namespace}": ${why}`;

/** IPAM of the project `namespace` stands for; throws, naming the owner, when it names none. */
export function ipamOfNamespace(
  namespace: string,
  owner: string,
  deps: Pick<ReleaseDeps, 'namespaces' | 'ipam'>,
): { ipam: ProjectIpam; projectNamespace: string } {
  const route = routeFromStore(deps.namespaces, namespace);
  if (!route.resolved) throw new Error(unroutableRelease(owner, namespace, route.message));
  return { ipam: deps.ipam.forProject(route.project), projectNamespace: route.projectNamespace };
}

/**
 * Releases what `iface` holds in IPAM (§10 "Releasing addresses"), but for the IPClaims named in
 * `kept`; IPAM is not reached when nothing is left to release.
 */
export async function releaseInterfaceAddresses(
  iface: NetworkInterface,
  deps: Pick<ReleaseDeps, 'namespaces' | 'ipam' | 'cell'>,
  kept: ReadonlySet<string> = new Set(),
): Promise<void> {
  const owner = allocationOwner(iface);
  const released = heldAddresses(iface).filter(
    (held) => !kept.has(addressClaimName(owner, deps.cell, held.discriminator)),
  );
  if (released.length === 0) return;
  const { ipam, projectNamespace } = ipamOfNamespace(iface.metadata.namespace!, owner, deps);
  await releaseInterfaceIpClaims(iface, released, ipam, projectNamespace, deps.cell);
}

/** The IPClaims a claim's spec asks for in `cell`: the ones it allocates, or reuses when rebuilding. */
export function ipClaimsOfClaim(claim: NetworkInterfaceClaim, cell: string): string[] {
  return claimDiscriminators(claim).map((discriminator) =>
    addressClaimName(claim.metadata.name!, cell, discriminator),
  );
}

/** The IPClaims named after the claim in this cell that no existing interface in its namespace holds. */
function unheldIpClaims(
  claim: NetworkInterfaceClaim,
  iface: NetworkInterface | undefined,
  deps: ReleaseDeps,
): string[] {
  const claimName = claim.metadata.name!;
  const held = new Set<string>();
  const interfaces = [...deps.interfaces.list(claim.metadata.namespace), ...(iface ? [iface] : [])];
  for (const holder of interfaces) {
    if (allocationOwner(holder) !== claimName) continue;
    for (const address of heldAddresses(holder))
      held.add(addressClaimName(claimName, deps.cell, address.discriminator));
  }
  return ipClaimsOfClaim(claim, deps.cell).filter((name) => !held.has(name));
}

export async function releaseClaim(
  claim: NetworkInterfaceClaim,
  deps: ReleaseDeps,
  log: Logger,
): Promise<void> {
  if (!hasFinalizer(claim, NETWORKINTERFACECLAIM_RELEASE_FINALIZER)) return;
  const namespace = claim.metadata.namespace!;
  const claimName = claim.metadata.name!;
  const iface = await deps.interfaceClient.get(claimedInterfaceName(claimName, claim.spec), namespace);
  const holds = iface !== undefined && iface.spec.claimRef?.name === claimName;
  const retain = claim.spec.reclaimPolicy === 'Retain';
  // An interface already being deleted cannot be retained: the interface controller may have let
  // it go as held by this (then live) claim, so its addresses are released here or by nobody.
  const going = iface?.metadata.deletionTimestamp !== undefined;
  if (iface && holds && retain && !going) {
    const unbound = await deps.interfaceClient.patchMerge(iface.metadata.name!, namespace, {
      metadata: { resourceVersion: iface.metadata.resourceVersion },
      spec: { claimRef: null },
    });
    await patchStatus(deps.interfaceClient, unbound, { phase: 'Available' });
  } else if (iface && holds) {
    await releaseInterfaceAddresses(iface, deps);
    await deps.interfaceClient.delete(iface.metadata.name!, namespace, {
      preconditions: { uid: iface.metadata.uid },
    });
    const deleting = await deps.interfaceClient.get(iface.metadata.name!, namespace);
    if (deleting) await removeFinalizer(deps.interfaceClient, deleting, NETWORKINTERFACE_RELEASE_FINALIZER);
  } else if (iface && iface.spec.claimRef === undefined && retain) {
    await patchStatus(deps.interfaceClient, iface, { phase: 'Available' });
  } else if (claim.status?.networkInterfaceRef || routeFromStore(deps.namespaces, namespace).resolved) {
    // A claim that never bound in a namespace that names no project allocated nothing: it must
    // not be held deleting by a routing problem.
    const { ipam, projectNamespace } = ipamOfNamespace(namespace, claimName, deps);
    await releaseIpClaims(ipam, projectNamespace, claimName, unheldIpClaims(claim, iface, deps));
  }
  await holdNetwork(namespace, claim.spec.network.name, deps);
  await removeFinalizer(deps.claimClient, claim, NETWORKINTERFACECLAIM_RELEASE_FINALIZER);
  log.debug({ retained: retain }, 'claim released');
}
