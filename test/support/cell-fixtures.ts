/**
 * Fixture K (scenarios.md §0) and the reads the cell scenario tests share: the cell `cell-a` with
 * namespace `H` (labelled as on the hub), ServingLocation `us-central-1`, context `C` and its IPv6
 * Subnet; project `project-alpha` with the default IPAM set and the ScopeRange claims holding
 * `fd20::/48` for `vpc` and `fd20::/64` for (`vpc`, `us-central-1`); and the cell process, which a
 * test can start with a subset of its controllers, stop, and start again.
 */
import { Registry } from 'prom-client';
import type { Condition } from '../../src/apis/common/condition.ts';
import {
  hubNamespaceName,
  upstreamClusterName,
  UPSTREAM_CLUSTER_NAME_LABEL,
  UPSTREAM_NAMESPACE_LABEL,
} from '../../src/apis/common/upstream.ts';
import { NETWORK_CLASS, SUBNET_CLASS } from '../../src/apis/ipam/v1alpha1/default-set.ts';
import { ipAllocationKind, type IPAllocation } from '../../src/apis/ipam/v1alpha1/ip-allocation.ts';
import type { IPClaim } from '../../src/apis/ipam/v1alpha1/ip-claim.ts';
import type { IPPool } from '../../src/apis/ipam/v1alpha1/ip-pool.ts';
import { networkLocationScope, networkScope } from '../../src/apis/ipam/v1alpha1/scope.ts';
import type { NetworkContext } from '../../src/apis/networking/v1alpha/network-context.ts';
import type { NetworkInterfaceClaim } from '../../src/apis/networking/v1alpha/network-interface-claim.ts';
import type { NetworkInterface } from '../../src/apis/networking/v1alpha/network-interface.ts';
import type { ServingLocation } from '../../src/apis/networking/v1alpha/serving-location.ts';
import type { Subnet } from '../../src/apis/networking/v1alpha/subnet.ts';
import type { KubeObject, ResourceClient } from '../../src/client/types.ts';
import type { CellContext } from '../../src/controllers/cell/cell-context.ts';
import {
  CLAIMS,
  CONTEXTS,
  INTERFACES,
  SERVING_LOCATIONS,
  SUBNETS,
} from '../../src/controllers/cell/cell-context.ts';
import { startCell, type CellProcess } from '../../src/processes/cell.ts';
import type { ControllerDefinition } from '../../src/runtime/manager-context.ts';
import { EVENTS, NAMESPACES, resourceIdOf } from '../../src/runtime/resource-ids.ts';
import type { Clock } from '../../src/runtime/clock.ts';
import { RuntimeMetrics } from '../../src/runtime/metrics.ts';
import {
  ALPHA,
  fixtureTopology,
  IP_CLAIMS,
  IP_POOLS,
  planeOf,
  US_CENTRAL_1,
  until,
  WITHIN,
} from './project-fixtures.ts';
import { startScenario, type Scenario } from './scenario.ts';

export { ALPHA, US_CENTRAL_1, WITHIN, until };
export const CELL_A = 'cell-a';
export const VPC = 'vpc';
/** `C`: the context of `vpc` in `us-central-1`. */
export const C = 'vpc-us-central-1';
export const IPV6_SUBNET = 'vpc-us-central-1-ipv6';
export const IP_ALLOCATIONS = resourceIdOf(ipAllocationKind);

export interface FixtureKOptions {
  /** Deliver ServingLocation `us-central-1` (default true). */
  servingLocation?: boolean;
  /** Context `C`'s spec over the fixture's, or false for no `C` (default: the fixture's). */
  context?: false | Partial<NetworkContext['spec']>;
  /** The controllers of the cell process (default all); false: start none yet. */
  controllers?: ControllerDefinition<CellContext>[] | false;
  /** `--location`. */
  location?: string;
  /** Give the cell the hub (`--hub-kubeconfig`, `--cell-name cell-a`). */
  hub?: boolean;
  clock?: Clock;
  /** The API server's `--audit-log`. */
  auditLog?: string;
}

export interface CellScenario {
  s: Scenario;
  /** `H`: the cell namespace of `project-alpha`/`default`. */
  H: string;
  cell?: CellProcess;
  metrics: RuntimeMetrics;
  claims: ResourceClient<NetworkInterfaceClaim>;
  interfaces: ResourceClient<NetworkInterface>;
  contexts: ResourceClient<NetworkContext>;
  subnets: ResourceClient<Subnet>;
  servingLocations: ResourceClient<ServingLocation>;
  namespaces: ResourceClient;
  events: ResourceClient;
  ipClaims: ResourceClient<IPClaim>;
  ipAllocations: ResourceClient<IPAllocation>;
  ipPools: ResourceClient<IPPool>;
  /** Starts (again) the cell process with `controllers` (default all) and `location` (default the fixture's). */
  startCell(controllers?: ControllerDefinition<CellContext>[], location?: string): Promise<CellProcess>;
  stopCell(): Promise<void>;
  stop(): Promise<void>;
}

export function contextSpec(overrides: Partial<NetworkContext['spec']> = {}): NetworkContext['spec'] {
  return {
    network: { name: VPC },
    location: { name: US_CENTRAL_1 },
    ipFamilies: ['IPv6', 'IPv4'],
    mtu: 1460,
    ...overrides,
  };
}

export async function startFixtureK(options: FixtureKOptions = {}): Promise<CellScenario> {
  const s = await startScenario({
    projects: [ALPHA],
    cells: [CELL_A],
    clock: options.clock,
    auditLog: options.auditLog,
  });
  const cellClient = <T extends KubeObject>(id: Parameters<Scenario['client']>[1]) => s.client<T>(CELL_A, id);
  const projectNamespace = await s.client(planeOf(ALPHA), NAMESPACES).get('default');
  const H = hubNamespaceName(projectNamespace!.metadata.uid!);
  const k: CellScenario = {
    s,
    H,
    metrics: new RuntimeMetrics(new Registry()),
    claims: cellClient(CLAIMS),
    interfaces: cellClient(INTERFACES),
    contexts: cellClient(CONTEXTS),
    subnets: cellClient(SUBNETS),
    servingLocations: cellClient(SERVING_LOCATIONS),
    namespaces: cellClient(NAMESPACES),
    events: cellClient(EVENTS),
    ipClaims: s.client(planeOf(ALPHA), IP_CLAIMS),
    ipAllocations: s.client(planeOf(ALPHA), IP_ALLOCATIONS),
    ipPools: s.client(planeOf(ALPHA), IP_POOLS),
    async startCell(controllers, location = options.location) {
      if (k.cell) throw new Error('the cell process is already running');
      k.metrics = new RuntimeMetrics(new Registry());
      k.cell = await startCell({
        cell: s.kubeConfig(CELL_A),
        ipam: s.kubeConfig('platform'),
        ...(options.hub && { hub: s.kubeConfig('hub'), cellName: CELL_A }),
        location,
        log: s.ctx.log,
        clock: options.clock,
        metrics: k.metrics,
        leaderElection: false,
        controllers,
        name: CELL_A,
      });
      return k.cell;
    },
    async stopCell() {
      await k.cell?.stop();
      k.cell = undefined;
    },
    async stop() {
      await k.stopCell();
      await s.stop();
    },
  };
  await k.namespaces.create({
    metadata: {
      name: H,
      labels: {
        [UPSTREAM_CLUSTER_NAME_LABEL]: upstreamClusterName(ALPHA),
        [UPSTREAM_NAMESPACE_LABEL]: 'default',
      },
    },
  });
  if (options.servingLocation !== false) await deliverServingLocation(k, US_CENTRAL_1);
  if (options.context !== false) await createContext(k, C, contextSpec(options.context));
  await k.subnets.create({
    metadata: { name: IPV6_SUBNET, namespace: H },
    spec: {
      subnetClass: 'private',
      networkContext: { name: C },
      location: { name: US_CENTRAL_1 },
      ipFamily: 'IPv6',
      startAddress: 'fd20::',
      prefixLength: 64,
    },
  });
  await k.ipClaims.create({
    metadata: { name: 'network-vpc', namespace: 'default' },
    spec: { className: NETWORK_CLASS, target: 'ScopeRange', scope: networkScope(VPC) },
  });
  await k.ipClaims.create({
    metadata: { name: 'networkcontext-vpc-us-central-1', namespace: 'default' },
    spec: { className: SUBNET_CLASS, target: 'ScopeRange', scope: networkLocationScope(VPC, US_CENTRAL_1) },
  });
  if (options.controllers !== false) await k.startCell(options.controllers);
  return k;
}

export async function deliverServingLocation(k: CellScenario, name: string): Promise<void> {
  await k.servingLocations.create({ metadata: { name }, spec: { topology: fixtureTopology() } });
}

export async function createContext(
  k: CellScenario,
  name: string,
  spec: NetworkContext['spec'],
  namespace = k.H,
): Promise<NetworkContext> {
  return k.contexts.create({ metadata: { name, namespace }, spec });
}

export async function createClaim(
  k: CellScenario,
  name: string,
  spec: Partial<NetworkInterfaceClaim['spec']> = {},
  namespace = k.H,
): Promise<NetworkInterfaceClaim> {
  return k.claims.create({ metadata: { name, namespace }, spec: { network: { name: VPC }, ...spec } });
}

export function conditionOf(object: { status?: { conditions?: Condition[] } } | undefined, type: string) {
  return object?.status?.conditions?.find((condition) => condition.type === type);
}

/** Waits until the claim's condition `type` has `reason` (and `status`, when given). */
export async function claimCondition(
  k: CellScenario,
  name: string,
  type: string,
  reason: string,
  status?: Condition['status'],
  namespace = k.H,
  timeoutMs = WITHIN,
): Promise<NetworkInterfaceClaim> {
  let last: NetworkInterfaceClaim | undefined;
  await until(
    async () => {
      last = await k.claims.get(name, namespace);
      const condition = conditionOf(last, type);
      return condition?.reason === reason && (status === undefined || condition.status === status);
    },
    timeoutMs,
    `claim ${name} to have ${type} ${status ?? ''} ${reason} (last: ${JSON.stringify(last?.status?.conditions)})`,
  );
  return last!;
}

/** Waits until claim `name` is Bound=True. */
export function bound(k: CellScenario, name: string, namespace = k.H, timeoutMs = WITHIN) {
  return claimCondition(k, name, 'Bound', 'Bound', 'True', namespace, timeoutMs);
}

/** The IPClaim names in `default` of project-alpha. */
export async function ipClaimNames(k: CellScenario): Promise<string[]> {
  return (await k.ipClaims.list({ namespace: 'default' })).items.map((claim) => claim.metadata.name!).sort();
}

/** The value of a metric series on the cell's registry (0 when absent). */
export async function metricValue(
  k: CellScenario,
  metric: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const found = await k.metrics.registry.getSingleMetric(metric)?.get();
  const series = found?.values.find((v) =>
    Object.entries(labels).every(([key, value]) => v.labels[key] === value),
  );
  return series?.value ?? 0;
}

/** Every series of a metric, as `labels → value`. */
export async function metricSeries(k: CellScenario, metric: string): Promise<Array<Record<string, unknown>>> {
  const found = await k.metrics.registry.getSingleMetric(metric)?.get();
  return (found?.values ?? []).map((v) => ({ ...v.labels, value: v.value }));
}

/** Reconciles claim `name` once more and waits for the claim controller to go quiet. */
export async function reconcileClaimAgain(k: CellScenario, name: string): Promise<void> {
  const before = await reconcileCount(k, 'claim');
  // An annotation the controller does not own: a watch event, no spec change.
  await k.claims.patchMerge(name, k.H, { metadata: { annotations: { 'test/nudge': String(Date.now()) } } });
  await until(
    async () => (await reconcileCount(k, 'claim')) > before,
    WITHIN,
    `claim ${name} to be reconciled`,
  );
  await settle(k, 'claim');
}

export async function reconcileCount(k: CellScenario, controller: string): Promise<number> {
  const metric = await k.metrics.reconcileTotal.get();
  return metric.values.filter((v) => v.labels.controller === controller).reduce((sum, v) => sum + v.value, 0);
}

/** Waits until `controller`'s queue is empty and no reconcile finishes for a short spell. */
export async function settle(k: CellScenario, controller: string): Promise<void> {
  for (;;) {
    const before = await reconcileCount(k, controller);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const depth =
      (await k.metrics.workqueueDepth.get()).values.find((v) => v.labels.name === controller)?.value ?? 0;
    if (depth === 0 && (await reconcileCount(k, controller)) === before) return;
  }
}
