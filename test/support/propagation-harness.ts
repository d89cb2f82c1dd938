/**
 * The propagation harness (propagation.md §9): an embedded API server with a `hub` plane and the
 * member planes `cell-dfw-1`, `cell-dfw-2` and `cell-ord-1`, the hub CRDs (netpresence's and the
 * engine's) and the cell CRDs, the three Clusters labelled and `Ready=True`, hub namespace
 * `ns-a`, and the engine in embedded mode on a FakeClock, with typed clients for every plane.
 *
 * A scenario may create its Given objects before starting the engine (`engine: false`, then
 * `startEngine()`), restart it (`restartEngine()`), and add clusters with or without a plane.
 * `eventually` waits for a condition while advancing the fake clock past backoffs; `idle` waits
 * until the engine's queues have stayed empty and no reconcile has run for a few rounds.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { clusterKind, type Cluster } from '../../src/apis/cluster/v1alpha1/cluster.ts';
import type { Condition } from '../../src/apis/common/condition.ts';
import { CLUSTER_LOCATION_LABEL, LOCATION_LABEL } from '../../src/apis/common/labels.ts';
import { cellCrds, hubCrds, propagationCrds } from '../../src/apis/crds.ts';
import { installCrds } from '../../src/apis/install-crds.ts';
import {
  networkContextKind,
  type NetworkContext,
} from '../../src/apis/networking/v1alpha/network-context.ts';
import { servingLocationKind } from '../../src/apis/networking/v1alpha/serving-location.ts';
import { subnetKind } from '../../src/apis/networking/v1alpha/subnet.ts';
import type { ClusterPropagationPolicy } from '../../src/apis/policy/v1alpha1/cluster-propagation-policy.ts';
import { workKind, type Work } from '../../src/apis/work/v1alpha1/work.ts';
import type { ClusterResourceBinding } from '../../src/apis/work/v1alpha2/cluster-resource-binding.ts';
import { resourceBindingKind, type ResourceBinding } from '../../src/apis/work/v1alpha2/resource-binding.ts';
import { clusterResourceBindingKind } from '../../src/apis/work/v1alpha2/cluster-resource-binding.ts';
import { clusterPropagationPolicyKind } from '../../src/apis/policy/v1alpha1/cluster-propagation-policy.ts';
import { propagationPolicyKind } from '../../src/apis/policy/v1alpha1/propagation-policy.ts';
import { writeKubeconfig } from '../../src/apiserver/auth/kubeconfig.ts';
import { ApiServer } from '../../src/apiserver/server.ts';
import { loadKubeConfig } from '../../src/client/kubeconfig.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import type { KubeObject, ResourceClient, ResourceId } from '../../src/client/types.ts';
import { conditionTime } from '../../src/runtime/conditions.ts';
import { EVENTS, NAMESPACES, resourceIdOf } from '../../src/runtime/resource-ids.ts';
import { startEngine, type Engine } from '../../src/propagation/engine.ts';
import { embeddedMembers } from '../../src/propagation/member/index.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { rootLogger, type Logger } from '../../src/runtime/logging.ts';
import { RuntimeMetrics } from '../../src/runtime/metrics.ts';
import { SECRETS } from '../../src/propagation/member/secret-trigger.ts';
import { eventually as eventuallyInRealTime } from './apiserver.ts';

export const HUB = 'hub';
export const DFW_1 = 'cell-dfw-1';
export const DFW_2 = 'cell-dfw-2';
export const ORD_1 = 'cell-ord-1';
export const CELLS = [DFW_1, DFW_2, ORD_1];
export const NS_A = 'ns-a';
export const TEMPLATE = 'default-dfw';
export const GATEWAYS_LABEL = 'infra.datum.net/gateways';

export const CLUSTERS = resourceIdOf(clusterKind);
export const CPPS = resourceIdOf(clusterPropagationPolicyKind);
export const PPS = resourceIdOf(propagationPolicyKind);
export const RBS = resourceIdOf(resourceBindingKind);
export const CRBS = resourceIdOf(clusterResourceBindingKind);
export const WORKS = resourceIdOf(workKind);
export const NCS = resourceIdOf(networkContextKind);
export const SUBNETS = resourceIdOf(subnetKind);
export const SLS = resourceIdOf(servingLocationKind);
export { EVENTS, NAMESPACES };

export type Policy = ClusterPropagationPolicy;
export type Binding = ResourceBinding | ClusterResourceBinding;

/** A bound on every wait, in real milliseconds. */
export const WITHIN = 15_000;

export interface HarnessOptions {
  /** Start the engine at once (default true); false lets a scenario create its Given first. */
  engine?: boolean;
  /** Skip the fixture clusters (default false). */
  noClusters?: boolean;
}

export interface PropagationHarness {
  server: ApiServer;
  clock: FakeClock;
  log: Logger;
  metrics: RuntimeMetrics;
  engine(): Engine;
  kubeConfig(plane: string): KubeConfig;
  hub<T extends KubeObject = KubeObject>(id: ResourceId): ResourceClient<T>;
  member<T extends KubeObject = KubeObject>(cluster: string, id: ResourceId): ResourceClient<T>;
  startEngine(): Promise<Engine>;
  stopEngine(): Promise<void>;
  restartEngine(): Promise<Engine>;
  /** A Cluster with `labels`, Ready as asked; with a member plane of the same name unless `plane: false`. */
  addCluster(
    name: string,
    labels: Record<string, string>,
    ready?: boolean,
    options?: { plane?: boolean; spec?: Record<string, unknown> },
  ): Promise<Cluster>;
  setReady(name: string, status: 'True' | 'False' | 'Unknown'): Promise<Cluster>;
  /** Waits for `check` to answer a value (not undefined), advancing the fake clock meanwhile. */
  eventually<T>(
    check: () => T | undefined | Promise<T | undefined>,
    what: string,
    timeoutMs?: number,
  ): Promise<T>;
  /** Waits until the engine has been idle (queues empty, no reconcile) for a few rounds. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const planeContext = (plane: string): string => plane;

export async function startPropagationHarness(options: HarnessOptions = {}): Promise<PropagationHarness> {
  const log = rootLogger({ level: (process.env.LOG_LEVEL as 'info' | undefined) ?? 'silent' });
  const server = await ApiServer.start({ log });
  const dir = await mkdtemp(join(tmpdir(), 'netpresence-propagation-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const planes = new Set<string>([HUB]);
  const rewrite = () => writeKubeconfig(kubeconfigPath, server.kubeconfig());
  server.addPlane(HUB);
  for (const cell of CELLS) {
    server.addPlane(cell);
    planes.add(cell);
  }
  await rewrite();
  const kubeConfig = (plane: string) => loadKubeConfig(kubeconfigPath, planeContext(plane));
  const hub = <T extends KubeObject>(id: ResourceId) => resourceClient<T>(kubeConfig(HUB), id);
  const member = <T extends KubeObject>(cluster: string, id: ResourceId) =>
    resourceClient<T>(kubeConfig(cluster), id);
  await Promise.all([
    installCrds(kubeConfig(HUB), [...hubCrds, ...propagationCrds]),
    ...CELLS.map((cell) => installCrds(kubeConfig(cell), cellCrds)),
  ]);

  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const metrics = new RuntimeMetrics(new Registry());
  let engine: Engine | undefined;

  async function setReady(name: string, status: 'True' | 'False' | 'Unknown'): Promise<Cluster> {
    const clusters = hub<Cluster>(CLUSTERS);
    const cluster = (await clusters.get(name))!;
    const held = cluster.status?.conditions ?? [];
    const reason =
      status === 'True' ? 'ClusterReady' : status === 'False' ? 'ClusterNotReady' : 'ClusterNotReachable';
    const condition: Condition = {
      type: 'Ready',
      status,
      reason,
      message: `Ready is ${status}`,
      lastTransitionTime: conditionTime(clock.now()),
    };
    const conditions = held.some((c) => c.type === 'Ready')
      ? held.map((c) => (c.type === 'Ready' ? condition : c))
      : [...held, condition];
    return clusters.patchMerge(name, undefined, { status: { conditions } }, { subresource: 'status' });
  }

  async function addCluster(
    name: string,
    labels: Record<string, string>,
    ready = true,
    clusterOptions: { plane?: boolean; spec?: Record<string, unknown> } = {},
  ): Promise<Cluster> {
    if (clusterOptions.plane !== false && !planes.has(name)) {
      server.addPlane(name);
      planes.add(name);
      await rewrite();
      await installCrds(kubeConfig(name), cellCrds);
    }
    await hub<Cluster>(CLUSTERS).create({
      metadata: { name, labels },
      spec: { syncMode: 'Push', ...clusterOptions.spec },
    });
    return setReady(name, ready ? 'True' : 'False');
  }

  async function startEngineNow(): Promise<Engine> {
    engine = await startEngine({
      mode: 'embedded',
      hub: kubeConfig(HUB),
      members: embeddedMembers({
        kubeConfigFor: (plane) => (planes.has(plane) && plane !== HUB ? kubeConfig(plane) : undefined),
        clock,
        log,
      }),
      log,
      clock,
      metrics,
    });
    return engine;
  }

  async function stopEngine(): Promise<void> {
    const running = engine;
    engine = undefined;
    await running?.stop();
  }

  async function eventually<T>(
    check: () => T | undefined | Promise<T | undefined>,
    what: string,
    timeoutMs = WITHIN,
  ): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (performance.now() > deadline)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await clock.advance(200);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async function activity(): Promise<{ depth: number; reconciles: number }> {
    const depth = (await metrics.workqueueDepth.get()).values.reduce((sum, v) => sum + v.value, 0);
    const reconciles = (await metrics.reconcileTotal.get()).values.reduce((sum, v) => sum + v.value, 0);
    const adds = (await metrics.workqueueAdds.get()).values.reduce((sum, v) => sum + v.value, 0);
    return { depth, reconciles: reconciles + adds };
  }

  async function idle(): Promise<void> {
    const deadline = performance.now() + WITHIN;
    let quietRounds = 0;
    let last = await activity();
    while (quietRounds < 4) {
      if (performance.now() > deadline)
        throw new Error(`timed out after ${WITHIN} ms waiting for the engine to be idle`);
      await clock.advance(2_000);
      await new Promise((resolve) => setTimeout(resolve, 25));
      const now = await activity();
      quietRounds = now.depth === 0 && now.reconciles === last.reconciles ? quietRounds + 1 : 0;
      last = now;
    }
  }

  if (!options.noClusters) {
    const dfw = { [CLUSTER_LOCATION_LABEL]: 'dfw', [GATEWAYS_LABEL]: 'enabled' };
    const ord = { [CLUSTER_LOCATION_LABEL]: 'ord', [GATEWAYS_LABEL]: 'enabled' };
    await addCluster(DFW_1, dfw);
    await addCluster(DFW_2, dfw);
    await addCluster(ORD_1, ord);
  }
  await hub(NAMESPACES).create({ metadata: { name: NS_A } });
  if (options.engine !== false) await startEngineNow();

  return {
    server,
    clock,
    log,
    metrics,
    engine: () => {
      if (!engine) throw new Error('the engine is not running: call startEngine()');
      return engine;
    },
    kubeConfig,
    hub,
    member,
    startEngine: startEngineNow,
    stopEngine,
    async restartEngine() {
      await stopEngine();
      return startEngineNow();
    },
    addCluster,
    setReady,
    eventually,
    idle,
    async stop() {
      await stopEngine();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** CPP `location-<loc>` as netpresence writes it (§9 fixtures): SL by name, NC and SN by location label. */
export function locationPolicy(
  location: string,
  extra: Partial<Policy['spec']> = {},
  name = `location-${location}`,
): Policy {
  return {
    metadata: { name },
    spec: {
      resourceSelectors: [
        { apiVersion: SLS_API_VERSION, kind: 'ServingLocation', name: location },
        ...[networkContextKind, subnetKind].map((kind) => ({
          apiVersion: kind.apiVersion,
          kind: kind.kind,
          labelSelector: { matchLabels: { [LOCATION_LABEL]: location } },
        })),
      ],
      placement: {
        clusterAffinity: { labelSelector: { matchLabels: { [CLUSTER_LOCATION_LABEL]: location } } },
      },
      ...extra,
    },
  };
}

const SLS_API_VERSION = servingLocationKind.apiVersion;
export const NC_API_VERSION = networkContextKind.apiVersion;

/** The fixture template `ns-a/default-dfw`, an NC labelled for dfw (or as given). */
export function contextTemplate(
  options: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    mtu?: number;
    annotations?: Record<string, string>;
  } = {},
): NetworkContext {
  return {
    apiVersion: NC_API_VERSION,
    kind: 'NetworkContext',
    metadata: {
      name: options.name ?? TEMPLATE,
      namespace: options.namespace ?? NS_A,
      labels: options.labels ?? { [LOCATION_LABEL]: 'dfw' },
      ...(options.annotations ? { annotations: options.annotations } : {}),
    },
    spec: { network: { name: 'default' }, location: { name: 'dfw' }, mtu: options.mtu ?? 1400 },
  };
}

/**
 * Through a `netpresence propagator` running against `hub` (real time): joins `member` as a Push
 * Cluster of location dfw reached through its kubeconfig Secret (`karmada-cluster/<member>`),
 * creates the fixture template with a policy for dfw, and resolves with the template's copy on
 * the member.
 */
export async function propagatedThroughSecret(
  hub: KubeConfig,
  member: KubeConfig,
  memberName: string,
): Promise<KubeObject> {
  const client = (id: ResourceId) => resourceClient(hub, id);
  await client(NAMESPACES).create({ metadata: { name: 'karmada-cluster' } });
  await client(SECRETS).create({
    metadata: { name: memberName, namespace: 'karmada-cluster' },
    data: { kubeconfig: Buffer.from(member.exportConfig()).toString('base64') },
  });
  await client(CLUSTERS).create({
    metadata: { name: memberName, labels: { 'topology.datum.net/location': 'dfw' } },
    spec: { syncMode: 'Push', secretRef: { namespace: 'karmada-cluster', name: memberName } },
  });
  await client(NAMESPACES).create({ metadata: { name: NS_A } });
  await client(CPPS).create(locationPolicy('dfw'));
  await client(NCS).create(contextTemplate());
  // Bounded by a first probe that times out under load (5 s), the next probe (10 s) and the
  // scheduling and apply after it.
  return eventuallyInRealTime(
    () => resourceClient(member, NCS).get(TEMPLATE, NS_A),
    45_000,
    'the copy on the member',
  );
}

/** The condition `type` of `object`, if any. */
export function conditionOf(object: { status?: { conditions?: Condition[] } } | undefined, type: string) {
  return object?.status?.conditions?.find((condition) => condition.type === type);
}

export type { Work };

export const RB_NAME = 'default-dfw-networkcontext';
export const WORK_NAME = 'default-dfw-855f9b568d';

/** The fixture RB, as the hub holds it now. */
export function rbOf(h: PropagationHarness, name = RB_NAME): Promise<ResourceBinding | undefined> {
  return h.hub<ResourceBinding>(RBS).get(name, NS_A);
}

/** The fixture template's copy on `cluster`. */
export function copyOn(
  h: PropagationHarness,
  cluster: string,
  name = TEMPLATE,
): Promise<NetworkContext | undefined> {
  return h.member<NetworkContext>(cluster, NCS).get(name, NS_A);
}

/** The fixture template's Work in `cluster`'s execution space. */
export function workIn(h: PropagationHarness, cluster: string, name = WORK_NAME): Promise<Work | undefined> {
  return h.hub<Work>(WORKS).get(name, `karmada-es-${cluster}`);
}

/** The names of an RB's `spec.clusters`, sorted. */
export function placedOn(binding: Binding | undefined): string[] {
  return (binding?.spec.clusters ?? []).map((cluster) => cluster.name).sort();
}

/** Waits for the RB to list exactly `clusters` and be FullyApplied as asked. */
export function waitPlaced(
  h: PropagationHarness,
  clusters: string[],
  fully: 'True' | 'False' | undefined = 'True',
  name = RB_NAME,
): Promise<ResourceBinding> {
  return h.eventually(
    async () => {
      const rb = await rbOf(h, name);
      if (!rb || placedOn(rb).join() !== [...clusters].sort().join()) return undefined;
      if (fully && conditionOf(rb, 'FullyApplied')?.status !== fully) return undefined;
      return rb;
    },
    `RB ${name} placed on {${clusters.join(', ')}}${fully ? ` with FullyApplied=${fully}` : ''}`,
  );
}

/** Waits until `check` of the copy on `cluster` holds (undefined copy: absent). */
export function waitCopy(
  h: PropagationHarness,
  cluster: string,
  check: (copy: NetworkContext | undefined) => boolean,
  what: string,
): Promise<NetworkContext | undefined> {
  return h
    .eventually(async () => {
      const copy = await copyOn(h, cluster);
      return check(copy) ? { copy } : undefined;
    }, `${what} on ${cluster}`)
    .then((found) => found.copy);
}

/** Scenario 1 converged: `location-dfw` (or `policy`) and the template, copies on both dfw cells. */
export async function converge(
  h: PropagationHarness,
  policy: Policy = locationPolicy('dfw'),
): Promise<{ policy: Policy; template: NetworkContext; rb: ResourceBinding }> {
  const created = await h.hub<Policy>(CPPS).create(policy);
  await h.hub<NetworkContext>(NCS).create(contextTemplate());
  const rb = await waitPlaced(h, [DFW_1, DFW_2]);
  await waitCopy(h, DFW_1, (copy) => copy !== undefined, 'the copy');
  await waitCopy(h, DFW_2, (copy) => copy !== undefined, 'the copy');
  const template = (await h.hub<NetworkContext>(NCS).get(TEMPLATE, NS_A))!;
  return { policy: created, template, rb };
}

/** The CPP claim on `object`: [permanent-id, name]. */
export function cppClaim(object: KubeObject | undefined): [string | undefined, string | undefined] {
  return [
    object?.metadata.labels?.['clusterpropagationpolicy.karmada.io/permanent-id'],
    object?.metadata.annotations?.['clusterpropagationpolicy.karmada.io/name'],
  ];
}
