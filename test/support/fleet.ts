/**
 * `netpresence up` as a child process, as a user runs it: started in a temporary directory with
 * `--port 0`, ready once it prints its ready line, reached through the kubeconfig it writes
 * (client-node and kubectl), stopped with SIGTERM.
 *
 * Fixture F (scenarios.md §0) as a fleet config: project `project-alpha` (Organization `acme`)
 * with Network `vpc`, Location `us-central-1` (city code DFW, region us-central1) with
 * networking available, and Cell `cell-a` serving it; more cells and projects on demand.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { CLUSTER_LOCATION_LABEL } from '../../src/apis/common/labels.ts';
import { hubNamespaceName } from '../../src/apis/common/upstream.ts';
import { parseKubeConfig, withContext } from '../../src/client/kubeconfig.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import type { KubeObject, ResourceClient, ResourceId } from '../../src/client/types.ts';
import { NAMESPACES, resourceIdOf } from '../../src/runtime/resource-ids.ts';
import { clusterKind } from '../../src/apis/cluster/v1alpha1/cluster.ts';
import { ipClaimKind } from '../../src/apis/ipam/v1alpha1/ip-claim.ts';
import { ipPoolKind } from '../../src/apis/ipam/v1alpha1/ip-pool.ts';
import { locationBindingKind } from '../../src/apis/networking/v1alpha/location-binding.ts';
import { locationKind } from '../../src/apis/networking/v1alpha/location.ts';
import { networkBindingKind } from '../../src/apis/networking/v1alpha/network-binding.ts';
import { networkContextKind } from '../../src/apis/networking/v1alpha/network-context.ts';
import { networkInterfaceClaimKind } from '../../src/apis/networking/v1alpha/network-interface-claim.ts';
import { networkInterfaceKind } from '../../src/apis/networking/v1alpha/network-interface.ts';
import { networkKind } from '../../src/apis/networking/v1alpha/network.ts';
import { servingLocationKind } from '../../src/apis/networking/v1alpha/serving-location.ts';
import { subnetKind } from '../../src/apis/networking/v1alpha/subnet.ts';
import { clusterPropagationPolicyKind } from '../../src/apis/policy/v1alpha1/cluster-propagation-policy.ts';
import { projectKind } from '../../src/apis/resourcemanager/v1alpha1/project.ts';
import { serviceAvailabilityKind } from '../../src/apis/services/v1alpha1/service-availability.ts';
import { READY_LINE_PREFIX } from '../../src/cli/up.ts';
import { networkContextMessages } from '../../src/apis/networking/v1alpha/network-context.ts';
import { eventually } from './apiserver.ts';
import { Kubectl } from './kubectl.ts';

export const REPO_ROOT = new URL('../..', import.meta.url).pathname;

export interface FleetConfigOptions {
  /** Cells besides `cell-a`, each with the location it serves (none: unlabelled). */
  cells?: { name: string; location?: string }[];
  /** Projects besides `project-alpha`, each with Network `vpc`. */
  projects?: string[];
  /** Location `us-central-1` without its city code (scenario 112). */
  withoutCityCode?: boolean;
  /** Location `eu-west-1` (city code DUB) besides `us-central-1` (scenario 123). */
  euWest1?: boolean;
  /** Serve `cell-a` without its controllers, for a `netpresence cell` the test runs (S120). */
  externalCellA?: boolean;
  /** Locations besides `us-central-1`, with fixture F's topology unless given. */
  locations?: { name: string; topology?: Record<string, string> }[];
}

export const FIXTURE_TOPOLOGY = {
  'topology.datum.net/city-code': 'DFW',
  'topology.datum.net/region': 'us-central1',
};

export const EU_WEST_1_TOPOLOGY = {
  'topology.datum.net/city-code': 'DUB',
  'topology.datum.net/region': 'europe-west1',
};

/** Fixture F as a fleet config (YAML). */
export function fixtureFConfig(options: FleetConfigOptions = {}): string {
  const topology: Record<string, string> = { ...FIXTURE_TOPOLOGY };
  if (options.withoutCityCode) delete topology['topology.datum.net/city-code'];
  return stringify({
    projects: ['project-alpha', ...(options.projects ?? [])].map((name) => ({
      name,
      organization: 'acme',
      networks: [{ name: 'vpc' }],
    })),
    locations: [
      { name: 'us-central-1', topology },
      ...(options.euWest1 ? [{ name: 'eu-west-1', topology: EU_WEST_1_TOPOLOGY }] : []),
      ...(options.locations ?? []).map((l) => ({ name: l.name, topology: l.topology ?? FIXTURE_TOPOLOGY })),
    ],
    cells: [
      { name: 'cell-a', location: 'us-central-1', ...(options.externalCellA && { controllers: false }) },
      ...(options.cells ?? []),
    ],
  });
}

export interface ChildFleetOptions {
  /** Fleet config YAML; the built-in default fleet without it. */
  config?: string;
  /** Keep the planes here (a restart on it resumes the fleet). */
  dataDir?: string;
  /** Reuse this directory (for the kubeconfig); a new temporary one without it. */
  dir?: string;
  timeoutMs?: number;
  /** Node options for the fleet process, before the script (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Variables added to the fleet process's environment (which is this process's otherwise). */
  env?: Record<string, string>;
  /** Serve the dashboard on a free loopback port; off without it, so fleets do not contend for it. */
  dashboard?: boolean;
  /** More flags for `up` (e.g. `--stand-ins-only`). */
  args?: string[];
  /** The script to run, relative to the repository root; `bin/netpresence.js` without it. */
  entry?: string;
}

export interface ChildFleet {
  child: ChildProcess;
  dir: string;
  kubeconfigPath: string;
  /** What the fleet printed on stdout up to and including its ready lines. */
  stdout(): string;
  /** Milliseconds from spawning to the ready line. */
  startupMs: number;
  kubectl: Kubectl;
  kubeConfig(context: string): KubeConfig;
  client<T extends KubeObject = KubeObject>(context: string, id: ResourceId): ResourceClient<T>;
  /** The hub namespace `ns-<uid>` of `project`'s namespace `default`, once the hub holds it. */
  hubNamespace(project: string): Promise<string>;
  /** Sends SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** Stops the fleet if running and removes the temporary directory. */
  dispose(): Promise<void>;
}

export async function startChildFleet(options: ChildFleetOptions = {}): Promise<ChildFleet> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'netpresence-fleet-')));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const args = [options.entry ?? 'bin/netpresence.js', 'up', '--port', '0', '--kubeconfig', kubeconfigPath];
  args.push('--dashboard', options.dashboard ? '127.0.0.1:0' : 'off');
  if (options.config !== undefined) {
    const configPath = join(dir, 'fleet.yaml');
    await writeFile(configPath, options.config);
    args.push('--config', configPath);
  }
  if (options.dataDir) args.push('--data-dir', options.dataDir);
  args.push(...(options.args ?? []));
  const started = performance.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...args], {
    cwd: REPO_ROOT,
    env: options.env ? { ...process.env, ...options.env } : process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timeoutMs = options.timeoutMs ?? 60_000;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`netpresence up was not ready within ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.stdout.on('data', () => {
      // The ready line is followed by the next-steps lines; wait for the last of them.
      if (stdout.includes(READY_LINE_PREFIX) && stdout.includes('quick start')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`netpresence up exited with ${code}:\n${stdout}\n${stderr}`));
    });
  });
  const startupMs = performance.now() - started;
  // The file names every plane (megabytes at a thousand projects): parsed once, and again only
  // for a context it did not yet name. A context's server and token do not change.
  let parsed: KubeConfig | undefined;
  const kubeConfigs = new Map<string, KubeConfig>();
  const kubeConfig = (context: string) => {
    let loaded = kubeConfigs.get(context);
    if (loaded) return loaded;
    if (!parsed?.getContextObject(context)) parsed = parseKubeConfig(kubeconfigPath);
    kubeConfigs.set(context, (loaded = withContext(parsed, kubeconfigPath, context)));
    return loaded;
  };
  let stopped: Promise<number | null> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    })();
    return stopped;
  };
  return {
    child,
    dir,
    kubeconfigPath,
    stdout: () => stdout,
    startupMs,
    kubectl: new Kubectl(kubeconfigPath, join(dir, 'kubectl-cache'), dir),
    kubeConfig,
    client: <T extends KubeObject>(context: string, id: ResourceId) =>
      resourceClient<T>(kubeConfig(context), id),
    async hubNamespace(project: string) {
      const namespaces = resourceClient(kubeConfig(`project-${project}`), NAMESPACES);
      const namespace = await eventually(() => namespaces.get('default'), 10_000, `${project}/default`);
      const name = hubNamespaceName(namespace.metadata.uid!);
      // The hub-namespace provisioner writes it a moment after the project plane's: a binding
      // sent before it would be refused 404.
      const hub = resourceClient(kubeConfig('hub'), NAMESPACES);
      await eventually(() => hub.get(name), 10_000, `hub namespace ${name} of ${project}/default`);
      return name;
    },
    stop,
    async dispose() {
      await stop();
      if (!options.dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Fixture F on a running fleet: `H` and a client per (plane, kind) a scenario reads. */
export interface FleetFixture {
  fleet: ChildFleet;
  /** `ns-<uid of project-alpha/default>`. */
  H: string;
  client<T extends KubeObject = KubeObject>(context: string, id: ResourceId): ResourceClient<T>;
  /** Creates NetworkBinding `name` in `namespace` (default `H`) for `network` at us-central-1. */
  createBinding(name?: string, network?: string, namespace?: string): Promise<KubeObject>;
  /** Creates claim `name` in `namespace` (default `H`) on `cell`, network `vpc` unless `spec` says. */
  createClaim(
    cell: string,
    name: string,
    spec?: Record<string, unknown>,
    namespace?: string,
  ): Promise<KubeObject>;
  /** Waits until `namespace` has reached `cell` through the engine's namespace propagation. */
  namespaceOnCell(cell: string, namespace: string): Promise<void>;
  dispose(): Promise<void>;
}

/** Every kind a fleet scenario reads, by the plural a reader knows it by. */
export const KINDS = {
  projects: resourceIdOf(projectKind),
  locations: resourceIdOf(locationKind),
  serviceAvailabilities: resourceIdOf(serviceAvailabilityKind),
  networks: resourceIdOf(networkKind),
  networkContexts: resourceIdOf(networkContextKind),
  subnets: resourceIdOf(subnetKind),
  locationBindings: resourceIdOf(locationBindingKind),
  ipClaims: resourceIdOf(ipClaimKind),
  ipPools: resourceIdOf(ipPoolKind),
  networkBindings: resourceIdOf(networkBindingKind),
  servingLocations: resourceIdOf(servingLocationKind),
  clusters: resourceIdOf(clusterKind),
  clusterPropagationPolicies: resourceIdOf(clusterPropagationPolicyKind),
  claims: resourceIdOf(networkInterfaceClaimKind),
  interfaces: resourceIdOf(networkInterfaceKind),
  namespaces: NAMESPACES,
};

/**
 * Starts the fleet with fixture F (plus `options`) and waits until `H` exists on every
 * configured cell, as scenarios.md §0 asks before anything is created in it there.
 */
export async function startFixtureF(options: FleetConfigOptions = {}): Promise<FleetFixture> {
  const fleet = await startChildFleet({ config: fixtureFConfig(options) });
  return fixtureOn(fleet, ['cell-a', ...(options.cells ?? []).map((c) => c.name)]);
}

/**
 * Fixture F on `fleet` (started with its config), once `H` exists on each of `cells`; bindings
 * are created through context `bindingsAs` (the hub's admin without it).
 */
export async function fixtureOn(
  fleet: ChildFleet,
  cells: string[],
  bindingsAs = 'hub',
): Promise<FleetFixture> {
  try {
    const H = await fleet.hubNamespace('project-alpha');
    const namespaceOnCell = async (cell: string, namespace: string) => {
      await eventually(
        () => fleet.client(cell, NAMESPACES).get(namespace),
        10_000,
        `${namespace} on ${cell}`,
      );
    };
    for (const cell of cells) await namespaceOnCell(cell, H);
    return {
      fleet,
      H,
      client: (context, id) => fleet.client(context, id),
      createBinding: (name = 'web', network = 'vpc', namespace = H) =>
        fleet.client(bindingsAs, KINDS.networkBindings).create({
          metadata: { name, namespace },
          spec: {
            network: { name: network },
            location: { name: 'us-central-1' },
            consumer: { apiGroup: 'compute.datumapis.com', kind: 'WorkloadDeployment', name },
          },
        }),
      createClaim: (cell, name, spec = {}, namespace = H) =>
        fleet.client(cell, KINDS.claims).create({
          metadata: { name, namespace },
          spec: { network: { name: 'vpc' }, ...spec },
        }),
      namespaceOnCell,
      dispose: () => fleet.dispose(),
    };
  } catch (err) {
    await fleet.dispose();
    throw err;
  }
}

/**
 * Waits until every check holds at once, failing after `timeoutMs` with the checks that still
 * do not; a check that throws counts as not holding. The bound is kept on the monotonic clock:
 * a wall-clock step (a VM paused and resynced) once made a Given fail after 14 s of a 15 s bound.
 */
export async function allWithin(
  timeoutMs: number,
  checks: Record<string, () => Promise<boolean> | boolean>,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const failing: string[] = [];
    for (const [what, check] of Object.entries(checks)) {
      const holds = await Promise.resolve()
        .then(check)
        .catch(() => false);
      if (!holds) failing.push(what);
    }
    if (failing.length === 0) return;
    if (performance.now() > deadline)
      throw new Error(`after ${timeoutMs} ms these still do not hold: ${failing.join('; ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A condition of an object, by type. */
export function conditionOf(
  object:
    | { status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } }
    | undefined,
  type: string,
) {
  return object?.status?.conditions?.find((condition) => condition.type === type);
}

// ---- fixture F's names and scenario 104, shared by the fleet scenarios ----

/** scenarios.md §0: "within 2 seconds on the embedded fleet". */
export const WITHIN = 2000;
/** How long a Given may take to be reached: only a When's outcome is bounded by the spec. */
export const GIVEN_WITHIN = 15_000;
export const C = 'vpc-us-central-1';
export const SUBNET = 'vpc-us-central-1-ipv6';
/** The kubeconfig context of project `project-alpha`'s plane. */
export const ALPHA = 'project-project-alpha';
export const POLICY = 'location-us-central-1';

export type Any = any;

export const get = (
  f: FleetFixture,
  context: string,
  kind: keyof typeof KINDS,
  name: string,
  namespace?: string,
) => f.client<Any>(context, KINDS[kind]).get(name, namespace);

export const present = async (...args: Parameters<typeof get>) => (await get(...args)) !== undefined;
export const gone = async (...args: Parameters<typeof get>) => (await get(...args)) === undefined;

export const isTrue = (object: Any, type: string, reason?: string) =>
  conditionOf(object, type)?.status === 'True' &&
  (reason === undefined || conditionOf(object, type)?.reason === reason);

/** Every Then of S104, as checks that must hold together. */
export function s104Outcome(f: FleetFixture, claim = 'web-0-eth0', address = 'fd20::1:0:0/96') {
  return {
    'LocationBinding us-central-1 exists in project-alpha': async () =>
      (await get(f, ALPHA, 'locationBindings', 'us-central-1')) !== undefined,
    'vpc holds fd20::/48': async () =>
      (await get(f, ALPHA, 'networks', 'vpc', 'default'))?.status?.ipam?.ipv6Prefix === 'fd20::/48',
    'C holds fd20::/64 and is Ready': async () => {
      const context = await get(f, ALPHA, 'networkContexts', C, 'default');
      return (
        conditionOf(context, 'IPAMAllocated')?.message === networkContextMessages.allocated('fd20::/64') &&
        isTrue(context, 'Ready')
      );
    },
    'the Subnet starts at fd20::': async () =>
      (await get(f, ALPHA, 'subnets', SUBNET, 'default'))?.spec?.startAddress === 'fd20::',
    'web is Ready NetworkContextReady with ref {default, C}': async () => {
      const binding = await get(f, 'hub', 'networkBindings', 'web', f.H);
      return (
        isTrue(binding, 'Ready', 'NetworkContextReady') &&
        binding.status?.networkContextRef?.namespace === 'default' &&
        binding.status?.networkContextRef?.name === C
      );
    },
    'H on the hub holds copies of C and the Subnet': async () =>
      (await get(f, 'hub', 'networkContexts', C, f.H)) !== undefined &&
      (await get(f, 'hub', 'subnets', SUBNET, f.H)) !== undefined,
    'cell-a holds the ServingLocation and copies of C and the Subnet': async () =>
      (await get(f, 'cell-a', 'servingLocations', 'us-central-1')) !== undefined &&
      (await get(f, 'cell-a', 'networkContexts', C, f.H)) !== undefined &&
      (await get(f, 'cell-a', 'subnets', SUBNET, f.H)) !== undefined,
    [`interface ${claim} has ${address}, gateway fd20::1, primary, mtu 1460`]: async () => {
      const iface = await get(f, 'cell-a', 'interfaces', claim, f.H);
      const primary = iface?.spec?.addresses?.find((a: Any) => a.family === 'IPv6');
      return (
        primary?.address === address &&
        primary.gateway === 'fd20::1' &&
        primary.primary === true &&
        iface.spec.mtu === 1460
      );
    },
    [`IPClaim ${claim}.cell-a-f-ipv6 is Bound in project-alpha/default`]: async () =>
      (await get(f, ALPHA, 'ipClaims', `${claim}.cell-a-f-ipv6`, 'default'))?.status?.phase === 'Bound',
  };
}

/** Every Then of S106, as checks. */
export function s106Outcome(f: FleetFixture) {
  return {
    'the interface is gone': () => gone(f, 'cell-a', 'interfaces', 'web-0-eth0', f.H),
    'the IPClaim of the interface is gone': () =>
      gone(f, ALPHA, 'ipClaims', 'web-0-eth0.cell-a-f-ipv6', 'default'),
    'C is gone from the project plane': () => gone(f, ALPHA, 'networkContexts', C, 'default'),
    "C's IPClaim is gone": async () =>
      (await f.client<Any>(ALPHA, KINDS.ipClaims).list({ namespace: 'default' })).items.every(
        (claim: Any) => !claim.metadata.name.startsWith('networkcontext-'),
      ),
    'pool datum-subnet-v6-vpc-us-central-1 is gone': () =>
      gone(f, ALPHA, 'ipPools', 'datum-subnet-v6-vpc-us-central-1'),
    'the Subnet is gone from the project plane': () => gone(f, ALPHA, 'subnets', SUBNET, 'default'),
    'the hub copies are gone': async () =>
      (await gone(f, 'hub', 'networkContexts', C, f.H)) && (await gone(f, 'hub', 'subnets', SUBNET, f.H)),
    'the cell copies are gone': async () =>
      (await gone(f, 'cell-a', 'networkContexts', C, f.H)) &&
      (await gone(f, 'cell-a', 'subnets', SUBNET, f.H)),
    'vpc still holds fd20::/48 and is Ready': async () => {
      const network = await get(f, ALPHA, 'networks', 'vpc', 'default');
      return network?.status?.ipam?.ipv6Prefix === 'fd20::/48' && isTrue(network, 'Ready');
    },
    'the ServingLocation and location-us-central-1 remain': async () =>
      (await get(f, 'cell-a', 'servingLocations', 'us-central-1')) !== undefined &&
      (await get(f, 'hub', 'clusterPropagationPolicies', POLICY)) !== undefined,
  };
}

/**
 * S111's When and Thens on a fleet already in S104's state, with cells cell-a and cell-b: the
 * location's label moves from cell-a to cell-b; each Then holds within `within` ms.
 */
export async function scenario111(f: FleetFixture, within: number): Promise<void> {
  const clusters = f.client('hub', KINDS.clusters);
  await clusters.patchMerge('cell-a', undefined, {
    metadata: { labels: { [CLUSTER_LOCATION_LABEL]: null } },
  });
  await clusters.patchMerge('cell-b', undefined, {
    metadata: { labels: { [CLUSTER_LOCATION_LABEL]: 'us-central-1' } },
  });
  await allWithin(within, {
    'cell-b holds the ServingLocation and copies of C and the Subnet': async () =>
      (await present(f, 'cell-b', 'servingLocations', 'us-central-1')) &&
      (await present(f, 'cell-b', 'networkContexts', C, f.H)) &&
      (await present(f, 'cell-b', 'subnets', SUBNET, f.H)),
    'cell-a no longer holds the ServingLocation or the Subnet copy': async () =>
      !(await present(f, 'cell-a', 'servingLocations', 'us-central-1')) &&
      !(await present(f, 'cell-a', 'subnets', SUBNET, f.H)),
    "cell-a's copy of C is terminating but held": async () =>
      (await get(f, 'cell-a', 'networkContexts', C, f.H))?.metadata.deletionTimestamp !== undefined,
    'web-0-eth0 is Ready=False NoLocationIdentity with Bound and Allocated still True': async () => {
      const claim = await get(f, 'cell-a', 'claims', 'web-0-eth0', f.H);
      const ready = conditionOf(claim, 'Ready');
      return (
        ready?.status === 'False' &&
        ready.reason === 'NoLocationIdentity' &&
        isTrue(claim, 'Bound') &&
        isTrue(claim, 'Allocated')
      );
    },
  });
  await f.createClaim('cell-b', 'web-1-eth0');
  await allWithin(within, {
    'web-1-eth0 on cell-b binds fd20::2:0:0/96 with gateway fd20::1': async () => {
      const iface = await get(f, 'cell-b', 'interfaces', 'web-1-eth0', f.H);
      const address = iface?.spec.addresses.find((a: Any) => a.family === 'IPv6');
      return address?.address === 'fd20::2:0:0/96' && address.gateway === 'fd20::1';
    },
  });
  await f.client('cell-a', KINDS.claims).delete('web-0-eth0', f.H);
  await allWithin(within, {
    'its interface is gone': () => gone(f, 'cell-a', 'interfaces', 'web-0-eth0', f.H),
    'its IPClaim is gone': () => gone(f, ALPHA, 'ipClaims', 'web-0-eth0.cell-a-f-ipv6', 'default'),
    "cell-a's copy of C is gone": () => gone(f, 'cell-a', 'networkContexts', C, f.H),
  });
}

/** Given scenario 104. */
export async function scenario104(f: FleetFixture, claimSpec: Record<string, unknown> = {}): Promise<void> {
  await f.createBinding('web');
  await f.createClaim('cell-a', 'web-0-eth0', claimSpec);
  await allWithin(GIVEN_WITHIN, s104Outcome(f));
}
