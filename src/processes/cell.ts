/**
 * The cell process: every controller `netpresence cell` runs against one cell — location
 * identity, claim, interface and context hold — under the Lease `netpresence-cell` in
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
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../runtime/clock.ts';
import { serveEndpoints, type ListenAddress } from '../runtime/endpoints.ts';
import {
  defaultCandidateIdentity,
  type LeaderElection,
  type LeaseTiming,
} from '../runtime/leader-election.ts';
import { runWhileLeading } from '../runtime/run-while-leading.ts';
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

export const CELL_LEASE = 'netpresence-cell';
export const CELL_LEASE_NAMESPACE = 'kube-system';

/** Every cell controller, in the order they start. */
export const CELL_CONTROLLERS: ControllerDefinition<CellContext>[] = [
  locationIdentityController,
  claimController,
  interfaceController,
  contextHoldController,
];

export type { ListenAddress };

export interface CellOptions {
  /** The cell plane. */
  cell: KubeConfig;
  /** The IPAM base: project P's IPAM is at the Milo project path under its server. */
  ipam: KubeConfig;
  /** The hub; no cell controller reads it yet. */
  hub?: KubeConfig;
  /** The configured location, the fallback identity. */
  location?: string;
  log: Logger;
  clock?: Clock;
  metrics?: RuntimeMetrics;
  metricsAddr?: ListenAddress;
  healthAddr?: ListenAddress;
  /** The Lease holder identity; default `<hostname>_<random>`. */
  identity?: string;
  leaseTiming?: Partial<LeaseTiming>;
  /** Default true. */
  leaderElection?: boolean;
  /** Which controllers run; default all of CELL_CONTROLLERS. */
  controllers?: ControllerDefinition<CellContext>[];
  /** The plane name on log lines; default `cell`. */
  name?: string;
}

export interface CellProcess {
  ctx: CellContext;
  metricsUrl?: string;
  healthUrl?: string;
  ready(): boolean;
  isLeader(): boolean;
  stop(): Promise<void>;
}

export async function startCell(options: CellOptions): Promise<CellProcess> {
  const clock = options.clock ?? systemClock;
  const { log } = options;
  const metrics = options.metrics ?? new RuntimeMetrics();
  const identity = options.identity ?? defaultCandidateIdentity();
  const cell = new StaticPlane(options.name ?? 'cell', options.cell, clock, log);
  const ctx: CellContext = {
    cell,
    ipam: new IpamDirectory(options.ipam),
    identity: new IdentityHolder(),
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
  const definitions = options.controllers ?? CELL_CONTROLLERS;
  const running =
    options.leaderElection === false
      ? await runUnelected(ctx, definitions)
      : leadCell(ctx, cell, definitions, identity, options.leaseTiming);
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
      await cell.close();
      await endpoints.close();
    },
  };
}

async function runUnelected(
  ctx: CellContext,
  definitions: ControllerDefinition<CellContext>[],
): Promise<LeaderElection> {
  const controllers = definitions.map((definition) => definition.build(ctx));
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
  cell: StaticPlane,
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
    ready: () => cell.synced(),
    what: 'cell controllers',
  });
}
