/**
 * The manager: every controller `netpresence manager` runs, against real control planes — the
 * project-plane controllers (network, networkcontext, replicator, interface projector) in every replica, and the
 * hub-resident ones (presence, location publisher) only in the replica holding the Lease
 * `netpresence-manager` in `kube-system` of the hub — with a Prometheus endpoint and health
 * probes.
 *
 * Guarantees:
 * - project planes are discovered from `Project` objects on the platform and reached at the Milo
 *   path under the platform's server (`projectKubeConfig`); a plane is engaged while its Project
 *   is Ready;
 * - controllers start only after the informers they asked for have listed; the hub-resident
 *   controllers are built afresh for each term of leadership and stopped when it ends, so two
 *   replicas never run them at once;
 * - `/healthz` answers 200 while the process serves; `/readyz` answers 200 once the platform
 *   and hub informers have listed and every engaged project plane has been taken up, 503 before;
 *   `/metrics` serves the Prometheus text of the manager's metrics;
 * - `stop()` ends leadership (releasing the Lease), stops every controller, disengages every
 *   project plane, closes every informer and both listeners.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { systemClock } from '../runtime/clock.ts';
import type { LeaderElection } from '../runtime/leader-election.ts';
import { runWhileLeading } from '../runtime/run-while-leading.ts';
import type { LeadingProcess, LeadingProcessOptions } from './leading-process.ts';
import { RuntimeMetrics } from '../runtime/metrics.ts';
import { serveEndpoints, type ListenAddress } from '../runtime/endpoints.ts';
import {
  connectContext,
  startControllers,
  type ControllerDefinition,
  type ManagerContext,
  type StaticPlane,
} from '../runtime/manager-context.ts';
import { locationPublisherController } from '../controllers/hub/location-publisher.ts';
import { presenceControllerWith } from '../controllers/hub/presence.ts';
import { networkController } from '../controllers/project/network.ts';
import {
  claimsSubnet,
  networkContextControllerWith,
  type NetworkContextConfig,
} from '../controllers/project/networkcontext.ts';
import { managerReplicatorController } from '../controllers/project/replicator.ts';
import { interfaceProjectorController } from '../controllers/hub/interface-projector.ts';
import { SUBNET_CLASS } from '../apis/ipam/v1alpha1/default-set.ts';
import {
  HUB_REPLICATOR_FINALIZER,
  NETWORKCONTEXT_SUBNET_RELEASE_FINALIZER,
  type NetworkContext,
} from '../apis/networking/v1alpha/network-context.ts';

export const MANAGER_LEASE = 'netpresence-manager';
export const MANAGER_LEASE_NAMESPACE = 'kube-system';

/** The networkcontext controller's config; the replicator beside it finalizes every Subnet. */
const SUBNET_CONFIG: NetworkContextConfig = {
  subnetClass: SUBNET_CLASS,
  subnetFinalizers: [HUB_REPLICATOR_FINALIZER],
};

/**
 * The finalizers the project controllers below add to a context — the replicator's to every one,
 * the networkcontext controller's to one that claims a range — put on it by presence at its
 * create: two writes a context fewer, and no two controllers racing to add theirs to one object
 * (a 409 and a re-read each time one loses). Both controllers still add theirs to a context
 * that lacks it, so a context written by anything else is finalized as before.
 */
const contextFinalizers = (spec: NetworkContext['spec']): string[] => [
  HUB_REPLICATOR_FINALIZER,
  ...(claimsSubnet(SUBNET_CONFIG, spec) ? [NETWORKCONTEXT_SUBNET_RELEASE_FINALIZER] : []),
];

/** Run in every replica (sharded by project once sharding lands). */
export const PROJECT_CONTROLLERS: ControllerDefinition[] = [
  networkController,
  networkContextControllerWith(SUBNET_CONFIG),
  managerReplicatorController,
  interfaceProjectorController,
];
/**
 * Run by the Lease holder only. Presence's finalizers are those of PROJECT_CONTROLLERS: a
 * manager run with other project controllers (`projectControllers`) passes its own hub ones.
 */
export const HUB_CONTROLLERS: ControllerDefinition[] = [
  presenceControllerWith({ contextFinalizers }),
  locationPublisherController,
];

export type { ListenAddress };

export interface ManagerOptions extends LeadingProcessOptions {
  hub: KubeConfig;
  platform: KubeConfig;
  projectControllers?: ControllerDefinition[];
  hubControllers?: ControllerDefinition[];
}

export interface Manager extends LeadingProcess {
  ctx: ManagerContext;
  ready(): boolean;
}

export async function startManager(options: ManagerOptions): Promise<Manager> {
  const clock = options.clock ?? systemClock;
  const { log } = options;
  const ctx = connectContext({
    platform: options.platform,
    hub: options.hub,
    clock,
    log,
    metrics: new RuntimeMetrics(),
  });
  const { platform, hub } = ctx;
  let ready = false;

  const endpoints = await serveEndpoints({
    metricsAddr: options.metricsAddr,
    healthAddr: options.healthAddr,
    metrics: ctx.metrics,
    ready: () => ready,
  });
  const { metricsUrl, healthUrl } = endpoints;

  const projectControllers = await startControllers(ctx, options.projectControllers ?? PROJECT_CONTROLLERS);
  ready = true;

  const election = leadHubControllers(ctx, [platform, hub], options);
  log.info({ metricsUrl, healthUrl }, 'netpresence manager started');

  return {
    ctx,
    metricsUrl,
    healthUrl,
    ready: () => ready,
    isLeader: () => election.isLeader(),
    async stop() {
      ready = false;
      await election.stop();
      await projectControllers.stop();
      await endpoints.close();
    },
  };
}

/** Runs the hub-resident controllers for as long as this replica holds the Lease. */
function leadHubControllers(
  ctx: ManagerContext,
  planes: StaticPlane[],
  options: ManagerOptions,
): LeaderElection {
  const definitions = options.hubControllers ?? HUB_CONTROLLERS;
  return runWhileLeading(() => definitions.map((definition) => definition.build(ctx)), {
    plane: ctx.hub,
    name: MANAGER_LEASE,
    namespace: MANAGER_LEASE_NAMESPACE,
    identity: options.identity,
    log: ctx.log,
    clock: ctx.clock,
    timing: options.leaseTiming,
    ready: () => Promise.all(planes.map((plane) => plane.synced())),
    what: 'hub-resident controllers',
  });
}
