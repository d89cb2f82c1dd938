/**
 * The cell process: every controller `netpresence cell` runs against one cell — location
 * identity, claim, interface and context hold, and with a hub the interface write-back
 * (controllers.md §13.1) — under the Lease `netpresence-cell` in
 * `kube-system` of the cell, with IPAM reached per project under the configured IPAM base, a
 * Prometheus endpoint and health probes.
 *
 * Guarantees:
 * - the cell informers (ServingLocations, claims, interfaces, contexts, Subnets, Namespaces) are
 *   started and listed before any controller runs, so the identity is first judged from a synced
 *   ServingLocation store and no claim is judged before it;
 * - the controllers are built afresh for each term of leadership and stopped when it ends, so two
 *   replicas never run them at once; with `leaderElection: false` they run at once, unelected;
 * - nothing is process-global: the embedded fleet may start one cell process per cell, each with
 *   its own metrics registry;
 * - `/healthz` answers 200 while the process serves; `/readyz` 200 once the cell informers have
 *   listed; `/metrics` serves the process's metrics, the identity gauges included;
 * - `stop()` ends leadership (releasing the Lease), stops every controller, closes every
 *   informer and both listeners.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { systemClock } from '../runtime/clock.ts';
import { serveEndpoints, type ListenAddress } from '../runtime/endpoints.ts';
import {
  defaultCandidateIdentity,
  type LeaderElection,
  type LeaseTiming,
} from '../runtime/leader-election.ts';
import { runWhileLeading } from '../runtime/run-while-leading.ts';
import type { LeadingProcess, LeadingProcessOptions } from './leading-process.ts';
import { RuntimeMetrics } from '../runtime/metrics.ts';
import { cellView, type CellContext } from '../controllers/cell/cell-context.ts';
import { CellMetrics } from '../controllers/cell/cell-metrics.ts';
import { claimController } from '../controllers/cell/claim.ts';
import { contextHoldController } from '../controllers/cell/context-hold.ts';
import { IdentityHolder } from '../controllers/cell/identity.ts';
import { interfaceController } from '../controllers/cell/interface.ts';
import { IpamDirectory } from '../controllers/cell/ipam-directory.ts';
import { locationIdentityController } from '../controllers/cell/location-identity.ts';
import { StaticPlane, type ControllerDefinition } from '../runtime/manager-context.ts';
import { interfaceWriteBackController } from '../controllers/cell/interface-write-back.ts';

export const CELL_LEASE = 'netpresence-cell';
export const CELL_LEASE_NAMESPACE = 'kube-system';

/** Every cell controller, in the order they start. */
export const CELL_CONTROLLERS: ControllerDefinition<CellContext>[] = [
  locationIdentityController,
  claimController,
  interfaceController,
  contextHoldController,
];

/** Run besides CELL_CONTROLLERS when the cell has a hub. */
export const HUB_CELL_CONTROLLERS: ControllerDefinition<CellContext>[] = [interfaceWriteBackController];

export type { ListenAddress };

export interface CellOptions extends LeadingProcessOptions {
  /** The cell plane. */
  cell: KubeConfig;
  /** The IPAM base: project P's IPAM is at the Milo project path under its server. */
  ipam: KubeConfig;
  /** The hub: the interface write-back runs when it is given (with `cellName`). */
  hub?: KubeConfig;
  /** The configured location, the fallback identity. */
  location?: string;
  metrics?: RuntimeMetrics;
  /** Default true. */
  leaderElection?: boolean;
  /** Which controllers run; default CELL_CONTROLLERS, and HUB_CELL_CONTROLLERS with a hub. */
  controllers?: ControllerDefinition<CellContext>[];
  /** The plane name on log lines; default `cell`. */
  name?: string;
  /**
   * This cell's name, in the name and label of every IPClaim its claims make (apis.md §7.4);
   * default `name`, else the cell kubeconfig's current cluster name.
   */
  cellName?: string;
}

export interface CellProcess extends LeadingProcess {
  ctx: CellContext;
  ready(): boolean;
}

export async function startCell(options: CellOptions): Promise<CellProcess> {
  const clock = options.clock ?? systemClock;
  const { log } = options;
  const metrics = options.metrics ?? new RuntimeMetrics();
  const identity = options.identity ?? defaultCandidateIdentity();
  const cell = new StaticPlane(options.name ?? 'cell', options.cell, clock, log);
  const hub = options.hub && new StaticPlane('hub', options.hub, clock, log);
  const ctx: CellContext = {
    cell,
    hub,
    ipam: new IpamDirectory(options.ipam),
    identity: new IdentityHolder(),
    cellName: options.cellName ?? options.name ?? options.cell.getCurrentCluster()?.name ?? 'cell',
    configuredLocation: options.location || undefined,
    instance: identity,
    clock,
    log,
    metrics,
    cellMetrics: new CellMetrics(metrics.registry),
  };
  let ready = false;
  const endpoints = await serveEndpoints({
    metricsAddr: options.metricsAddr,
    healthAddr: options.healthAddr,
    metrics,
    ready: () => ready,
  });
  const { metricsUrl, healthUrl } = endpoints;

  cellView(ctx);
  await cell.synced();
  ready = true;
  const definitions =
    options.controllers ?? (hub ? [...CELL_CONTROLLERS, ...HUB_CELL_CONTROLLERS] : CELL_CONTROLLERS);
  const planes = hub ? [cell, hub] : [cell];
  const running =
    options.leaderElection === false
      ? await runUnelected(ctx, planes, definitions)
      : leadCell(ctx, planes, definitions, identity, options.leaseTiming);
  log.info({ metricsUrl, healthUrl }, 'netpresence cell started');

  return {
    ctx,
    metricsUrl,
    healthUrl,
    ready: () => ready,
    isLeader: () => running.isLeader(),
    async stop() {
      ready = false;
      await running.stop();
      await Promise.all(planes.map((plane) => plane.close()));
      await endpoints.close();
    },
  };
}

async function runUnelected(
  ctx: CellContext,
  planes: StaticPlane[],
  definitions: ControllerDefinition<CellContext>[],
): Promise<LeaderElection> {
  const controllers = definitions.map((definition) => definition.build(ctx));
  await Promise.all(planes.map((plane) => plane.synced()));
  for (const controller of controllers) await controller.start();
  return {
    isLeader: () => true,
    async stop() {
      for (const controller of controllers) await controller.stop();
    },
  };
}

/** Runs the cell controllers for as long as this replica holds the Lease. */
function leadCell(
  ctx: CellContext,
  planes: StaticPlane[],
  definitions: ControllerDefinition<CellContext>[],
  identity: string,
  timing: Partial<LeaseTiming> | undefined,
): LeaderElection {
  return runWhileLeading(() => definitions.map((definition) => definition.build(ctx)), {
    plane: ctx.cell,
    name: CELL_LEASE,
    namespace: CELL_LEASE_NAMESPACE,
    identity,
    log: ctx.log,
    clock: ctx.clock,
    timing,
    ready: () => Promise.all(planes.map((plane) => plane.synced())),
    what: 'cell controllers',
  });
}
