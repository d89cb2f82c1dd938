/**
 * The simulated data plane, cell part (controllers.md §14): a stand-in for what programs
 * attachments in one cell, so that claims in the embedded fleet can become Ready and a failing
 * data plane can be tried. Clearly a stand-in: it programs nothing.
 *
 * Guarantees: a NetworkInterface with `phase: Bound` and `Allocated=True` gets, `delayMs` after
 * `Allocated` turned True, `Prepared=True` and `Programmed=True` — or `Programmed=False` with the
 * reason and message of a `refuse` entry matching its network and the cell's location; an
 * interface that is `Available` or `Allocated=False` has both set back to `Unknown` `Pending`; one
 * not yet reported on (no phase, no `Allocated`) is left alone, as the claim controller seeds
 * both with its first status write, so the stand-in adds no write of its own there. The
 * claim named in `spec.claimRef` gets the same two conditions. Only those two conditions are
 * written, through the status subresource, and only when they differ.
 * Caveat: the delay counts from `Allocated`'s `lastTransitionTime`, which has whole seconds, so
 * it may end up to a second early. The cell's location is the one the fleet config gives it: the
 * stand-in's identity may read nothing but interfaces and claims.
 */
import { jsonEqual } from '../apis/common/json-equal.ts';
import type { Condition } from '../apis/common/condition.ts';
import {
  networkInterfaceClaimKind,
  type NetworkInterfaceClaim,
} from '../apis/networking/v1alpha/network-interface-claim.ts';
import {
  networkInterfaceKind,
  networkInterfaceMessages,
  NetworkInterfaceConditionType,
  NetworkInterfaceReason,
  type NetworkInterface,
} from '../apis/networking/v1alpha/network-interface.ts';
import type { ResourceClient } from '../client/types.ts';
import { objectKeyOf, parseObjectKey, type ObjectKey } from '../controllers/cell/cell-context.ts';
import type { PlaneAccess } from '../runtime/manager-context.ts';
import { findCondition, setCondition, type DesiredCondition } from '../runtime/conditions.ts';
import { resourceIdOf } from '../runtime/resource-ids.ts';
import { patchStatus } from '../runtime/writes.ts';
import type { Clock } from '../runtime/clock.ts';
import { after, Controller, type Outcome } from '../runtime/controller.ts';
import type { ObjectStore } from '../runtime/informer-contract.ts';
import type { RuntimeMetrics } from '../runtime/metrics.ts';
import { forObject, watches } from '../runtime/triggers.ts';
import type { Logger } from 'pino';
import type { DataPlaneConfig, DataPlaneRefusal } from './config.ts';

export const name = 'dataplane-interfaces';

export const dataPlaneMessages = {
  prepared: 'The attachment is prepared',
  programmed: 'The attachment is programmed',
  subnetProgrammed: (cells: number) => `The subnet is programmed in ${cells} cells`,
  subnetPending: (location: string) => `No cell serving ${location} holds the subnet yet`,
};

export const DataPlaneReason = {
  Prepared: 'Prepared',
  Programmed: 'Programmed',
  Pending: 'Pending',
} as const;

export interface InterfaceDataPlaneDeps {
  interfaces: ObjectStore<NetworkInterface>;
  claims: ObjectStore<NetworkInterfaceClaim>;
  interfaceClient: ResourceClient<NetworkInterface>;
  claimClient: ResourceClient<NetworkInterfaceClaim>;
  /** The location the cell serves; none for a cell serving nothing. */
  location: string | undefined;
  config: DataPlaneConfig;
  clock: Clock;
}

const PENDING: DesiredCondition[] = [
  {
    type: NetworkInterfaceConditionType.Prepared,
    status: 'Unknown',
    reason: NetworkInterfaceReason.Pending,
    message: networkInterfaceMessages.waitingToPrepare,
  },
  {
    type: NetworkInterfaceConditionType.Programmed,
    status: 'Unknown',
    reason: NetworkInterfaceReason.Pending,
    message: networkInterfaceMessages.waitingToProgram,
  },
];

/** The two conditions once the attachment is "programmed", or refused by `refusal`. */
export function programmedConditions(refusal: DataPlaneRefusal | undefined): DesiredCondition[] {
  return [
    {
      type: NetworkInterfaceConditionType.Prepared,
      status: 'True',
      reason: DataPlaneReason.Prepared,
      message: dataPlaneMessages.prepared,
    },
    refusal
      ? {
          type: NetworkInterfaceConditionType.Programmed,
          status: 'False',
          reason: refusal.reason,
          message: refusal.message,
        }
      : {
          type: NetworkInterfaceConditionType.Programmed,
          status: 'True',
          reason: DataPlaneReason.Programmed,
          message: dataPlaneMessages.programmed,
        },
  ];
}

export function refusalFor(
  config: DataPlaneConfig,
  network: string,
  location: string | undefined,
): DataPlaneRefusal | undefined {
  return config.refuse.find((entry) => entry.network === network && entry.location === location);
}

/** What the data plane reports for `iface` now, or how long until it reports. */
export function desiredConditions(
  iface: NetworkInterface,
  deps: Pick<InterfaceDataPlaneDeps, 'config' | 'location' | 'clock'>,
): { conditions: DesiredCondition[] } | { waitMs: number } {
  const allocated = findCondition(iface.status?.conditions, NetworkInterfaceConditionType.Allocated);
  // Set back (§14) only from a state that says so: an interface the claim controller has not yet
  // reported on gets its Pending seeds from that controller's own first status write.
  if (iface.status?.phase === 'Available' || allocated?.status === 'False') return { conditions: PENDING };
  if (iface.status?.phase !== 'Bound' || allocated?.status !== 'True') return { conditions: [] };
  const since = Date.parse(allocated.lastTransitionTime ?? '') || 0;
  const waitMs = since + deps.config.delayMs - deps.clock.now();
  if (waitMs > 0) return { waitMs };
  return {
    conditions: programmedConditions(refusalFor(deps.config, iface.spec.network.name, deps.location)),
  };
}

function withConditions(
  held: Condition[] | undefined,
  desired: DesiredCondition[],
  generation: number | undefined,
  now: number,
): Condition[] {
  return desired.reduce((list, condition) => setCondition(list, condition, generation, now), held ?? []);
}

export async function reconcile(key: ObjectKey, deps: InterfaceDataPlaneDeps): Promise<Outcome | void> {
  const { namespace, name: ifaceName } = parseObjectKey(key);
  const iface = deps.interfaces.get(namespace, ifaceName);
  if (!iface || iface.metadata.deletionTimestamp) return;
  const desired = desiredConditions(iface, deps);
  if ('waitMs' in desired) return after(desired.waitMs);
  const now = deps.clock.now();
  const conditions = withConditions(
    iface.status?.conditions,
    desired.conditions,
    iface.metadata.generation,
    now,
  );
  if (!jsonEqual(conditions, iface.status?.conditions ?? []))
    await patchStatus(deps.interfaceClient, iface, { conditions });
  const holder = iface.spec.claimRef?.name;
  const claim = holder === undefined ? undefined : deps.claims.get(namespace, holder);
  if (!claim || claim.metadata.deletionTimestamp) return;
  const claimConditions = withConditions(
    claim.status?.conditions,
    desired.conditions,
    claim.metadata.generation,
    now,
  );
  if (!jsonEqual(claimConditions, claim.status?.conditions ?? []))
    await patchStatus(deps.claimClient, claim, { conditions: claimConditions });
}

// ---- triggers -------------------------------------------------------------------------------

const INTERFACES = resourceIdOf(networkInterfaceKind);
const CLAIMS = resourceIdOf(networkInterfaceClaimKind);

export interface CellDataPlaneOptions {
  cell: PlaneAccess;
  location: string | undefined;
  config: DataPlaneConfig;
  clock: Clock;
  log: Logger;
  metrics: RuntimeMetrics;
}

export function interfaceDataPlane(options: CellDataPlaneOptions): Controller<ObjectKey> {
  const interfaces = options.cell.informer<NetworkInterface>(INTERFACES);
  const claims = options.cell.informer<NetworkInterfaceClaim>(CLAIMS);
  const deps: InterfaceDataPlaneDeps = {
    interfaces: interfaces.store,
    claims: claims.store,
    interfaceClient: options.cell.client<NetworkInterface>(INTERFACES),
    claimClient: options.cell.client<NetworkInterfaceClaim>(CLAIMS),
    location: options.location,
    config: options.config,
    clock: options.clock,
  };
  const controller = new Controller<ObjectKey>({
    name,
    reconcile: (key) => reconcile(key, deps),
    toString: (key) => key,
    fromString: (key) => key,
    planeOf: () => options.cell.name,
    workers: 2,
    clock: options.clock,
    log: options.log,
    metrics: options.metrics,
  });
  controller.watch(
    forObject(interfaces, (iface) => objectKeyOf(iface.metadata.namespace, iface.metadata.name!)),
  );
  // A claim's own status write (the claim controller seeding the conditions) wakes its interface.
  controller.watch(
    watches(claims, (event) => {
      const iface = event.object.status?.networkInterfaceRef?.name;
      return iface ? [objectKeyOf(event.object.metadata.namespace, iface)] : [];
    }),
  );
  return controller;
}
