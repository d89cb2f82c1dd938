/**
 * What every cell controller reaches (DESIGN.md §2, controllers.md §9–§12): the cell plane, IPAM
 * per project, the location identity, and the informers with the indexes the controllers read —
 * claims, interfaces and contexts by (namespace, network).
 *
 * Guarantees: the informers are shared by every controller of one cell (one reflector per kind),
 * and the index functions are module-level constants, so a shared informer accepts them from
 * every controller. Nothing here is process-global: two cells in one process share nothing.
 */
import type { Logger } from 'pino';
import type { NetworkContext } from '../../apis/networking/v1alpha/network-context.ts';
import { networkContextKind } from '../../apis/networking/v1alpha/network-context.ts';
import {
  networkInterfaceClaimKind,
  type NetworkInterfaceClaim,
} from '../../apis/networking/v1alpha/network-interface-claim.ts';
import {
  networkInterfaceKind,
  type NetworkInterface,
} from '../../apis/networking/v1alpha/network-interface.ts';
import { servingLocationKind, type ServingLocation } from '../../apis/networking/v1alpha/serving-location.ts';
import { subnetKind, type Subnet } from '../../apis/networking/v1alpha/subnet.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import type { Clock } from '../../runtime/clock.ts';
import type { RunningInformer } from '../../runtime/informer.ts';
import type { RuntimeMetrics } from '../../runtime/metrics.ts';
import type { PlaneAccess } from '../../runtime/manager-context.ts';
import { namespaceRoutingIndexes } from '../shared/hub-routing.ts';
import { EVENTS, NAMESPACES, resourceIdOf } from '../../runtime/resource-ids.ts';
import type { CellMetrics } from './cell-metrics.ts';
import type { IdentityHolder } from './identity.ts';
import type { IpamDirectory } from './ipam-directory.ts';

export interface CellContext {
  /** The cell plane: claims, interfaces, propagated contexts, subnets and ServingLocations. */
  cell: PlaneAccess;
  /** The hub, when the cell has one: hub copies of its interfaces (controllers.md §13.1). */
  hub?: PlaneAccess;
  ipam: IpamDirectory;
  identity: IdentityHolder;
  /**
   * This cell's name (its Cluster on the hub): part of the name and the label of every IPClaim
   * its claims make, and the `<interface>.<cell>` of its interfaces' hub copies.
   */
  cellName: string;
  /** The `--location` fallback. */
  configuredLocation?: string;
  /** Who reports events (the Lease identity). */
  instance: string;
  clock: Clock;
  log: Logger;
  metrics: RuntimeMetrics;
  cellMetrics: CellMetrics;
}

export const CLAIMS = resourceIdOf(networkInterfaceClaimKind);
export const INTERFACES = resourceIdOf(networkInterfaceKind);
export const CONTEXTS = resourceIdOf(networkContextKind);
export const SUBNETS = resourceIdOf(subnetKind);
export const SERVING_LOCATIONS = resourceIdOf(servingLocationKind);

/** Claims, interfaces and contexts by (namespace, spec.network.name). */
export const BY_NETWORK = 'byNetwork';

export function networkValue(namespace: string | undefined, network: string): string {
  return JSON.stringify([namespace ?? '', network]);
}

const byNetwork = (object: KubeObject & { spec?: { network?: { name?: string } } }): string[] =>
  object.spec?.network?.name === undefined
    ? []
    : [networkValue(object.metadata.namespace, object.spec.network.name)];

/** The informers and clients of one cell, as the controllers read and write them. */
export interface CellView {
  claims: RunningInformer<NetworkInterfaceClaim>;
  interfaces: RunningInformer<NetworkInterface>;
  contexts: RunningInformer<NetworkContext>;
  subnets: RunningInformer<Subnet>;
  namespaces: RunningInformer;
  servingLocations: RunningInformer<ServingLocation>;
  claimClient: ResourceClient<NetworkInterfaceClaim>;
  interfaceClient: ResourceClient<NetworkInterface>;
  contextClient: ResourceClient<NetworkContext>;
  eventClient: ResourceClient;
}

export function cellView(ctx: CellContext): CellView {
  const { cell } = ctx;
  return {
    claims: cell.informer<NetworkInterfaceClaim>(CLAIMS, { indexes: { [BY_NETWORK]: byNetwork } }),
    interfaces: cell.informer<NetworkInterface>(INTERFACES, { indexes: { [BY_NETWORK]: byNetwork } }),
    contexts: cell.informer<NetworkContext>(CONTEXTS, { indexes: { [BY_NETWORK]: byNetwork } }),
    subnets: cell.informer<Subnet>(SUBNETS),
    namespaces: cell.informer(NAMESPACES, { indexes: namespaceRoutingIndexes }),
    servingLocations: cell.informer<ServingLocation>(SERVING_LOCATIONS),
    claimClient: cell.client<NetworkInterfaceClaim>(CLAIMS),
    interfaceClient: cell.client<NetworkInterface>(INTERFACES),
    contextClient: cell.client<NetworkContext>(CONTEXTS),
    eventClient: cell.client(EVENTS),
  };
}

/** `<namespace>/<name>`: the key of a namespaced cell object. */
export type ObjectKey = string;

export function objectKeyOf(namespace: string | undefined, name: string): ObjectKey {
  return `${namespace ?? ''}/${name}`;
}

export function parseObjectKey(key: ObjectKey): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  if (slash <= 0 || slash === key.length - 1) throw new Error(`"${key}" is not <namespace>/<name>`);
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
