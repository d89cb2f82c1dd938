/**
 * bench/presence: how fast NetworkBindings become Ready on the embedded planes with every
 * presence controller running, and how many API writes a binding costs.
 *
 * Builds, in one process (test/support/scenario.ts: platform, hub and P project planes over real
 * HTTPS, project CRDs, the IPAM hook and default IPAM config), L Locations (Ready, networking
 * Available, one Ready hub Cluster each), P projects each with its hub namespace (the location
 * projector binds every project to every location), and K = ceil(N / (P × L)) Networks per project; then runs the location
 * projector, network, networkcontext, presence, replicator and location publisher controllers.
 *
 * Binding i goes to pair j = i mod (P × L): project p = j mod P, location l = ⌊j / P⌋, network
 * k = ⌊i / (P × L)⌋ — so the N bindings name N distinct (project, network, location) triples,
 * each its own NetworkContext.
 *
 * Measured, once with Networks of ipFamilies [IPv6] (every context claims a /64 from IPAM) and
 * once with [IPv4] (no claim):
 *   1. binding→Ready: from the moment its create is sent to the hub watch event carrying
 *      `Ready=True` (one watch over all hub NetworkBindings; nothing is polled); p50/p99;
 *   2. converge: from the first create to the last binding Ready;
 *   3. writes per binding: the advance of every plane's revision (platform, hub, projects) from
 *      before the first create until the planes are quiet after convergence, divided by N (the N
 *      creates included).
 *
 * Usage: npm run bench:presence -- [--bindings N] [--projects P] [--locations L]
 *        [--concurrency C] [--timeout SECONDS] [--family IPv6|IPv4|both]
 */
import { CLUSTER_LOCATION_LABEL } from '../../src/apis/common/labels.ts';
import type { NetworkBinding } from '../../src/apis/networking/v1alpha/network-binding.ts';
import { locationPublisherController } from '../../src/controllers/hub/location-publisher.ts';
import { presenceController } from '../../src/controllers/hub/presence.ts';
import { locationProjector } from '../../src/fleet/location-projector.ts';
import { networkController } from '../../src/controllers/project/network.ts';
import { networkContextController } from '../../src/controllers/project/networkcontext.ts';
import { replicatorController } from '../../src/controllers/project/replicator.ts';
import {
  binding,
  createCluster,
  createNetwork,
  NETWORK_BINDINGS,
  readyOf,
} from '../../test/support/hub-fixtures.ts';
import {
  createAvailability,
  createLocation,
  LOCATION_BINDINGS,
  planeOf,
  until,
} from '../../test/support/project-fixtures.ts';
import { startScenario, type Scenario } from '../../test/support/scenario.ts';
import { parseFlags, percentile, within } from '../flags.ts';

interface Args {
  bindings: number;
  projects: number;
  locations: number;
  concurrency: number;
  timeout: number;
  /** Which runs: 'IPv6', 'IPv4' or 'both' (default). */
  family: string;
}

function parseArgs(argv: string[]): Args {
  return parseFlags<Args>(
    argv,
    { bindings: 1000, projects: 10, locations: 10, concurrency: 16, timeout: 600, family: 'both' },
    { family: ['IPv6', 'IPv4', 'both'] },
  );
}

const projectName = (p: number) => `bench-p${p}`;
const locationName = (l: number) => `loc-${l}`;
const networkName = (k: number) => `net-${k}`;

/** Where binding `i` goes (see the header). */
function placement(i: number, args: Args) {
  const pairs = args.projects * args.locations;
  const j = i % pairs;
  return {
    project: j % args.projects,
    location: Math.floor(j / args.projects),
    network: Math.floor(i / pairs),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function revisionSum(s: Scenario): number {
  return s.server.planeNames().reduce((sum, name) => sum + (s.server.plane(name)?.log.revision ?? 0), 0);
}

/** Waits until no plane's revision moves for `quietMs` (at most `maxMs`); returns the sum. */
async function quietRevisions(s: Scenario, quietMs = 1000, maxMs = 30_000): Promise<number> {
  const deadline = Date.now() + maxMs;
  let last = revisionSum(s);
  let stableSince = Date.now();
  while (Date.now() < deadline) {
    await sleep(100);
    const now = revisionSum(s);
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    } else if (Date.now() - stableSince >= quietMs) break;
  }
  return last;
}

async function run(args: Args, family: 'IPv6' | 'IPv4'): Promise<void> {
  const projects = Array.from({ length: args.projects }, (_, p) => projectName(p));
  const setupStarted = performance.now();
  const s = await startScenario({
    controllers: [
      locationProjector,
      networkController,
      networkContextController,
      presenceController,
      replicatorController,
      locationPublisherController,
    ],
  });
  try {
    // One project at a time, each engaged before the next: addProject rewrites the scenario's
    // kubeconfig, and a plane engaging while the file is being rewritten can read it truncated.
    for (const project of projects) {
      await s.addProject(project);
      await until(() => s.ctx.projects.get(project) !== undefined, 30_000, `project ${project} to engage`);
    }
    const networksPerProject = Math.ceil(args.bindings / (args.projects * args.locations));
    for (let l = 0; l < args.locations; l++) {
      await createLocation(s, locationName(l));
      await createAvailability(s, locationName(l));
      await createCluster(s, `cell-${l}`, { [CLUSTER_LOCATION_LABEL]: locationName(l) });
    }
    const hubNamespaces: string[] = [];
    for (const project of projects) {
      hubNamespaces.push(await s.hubNamespace(project));
      for (let k = 0; k < networksPerProject; k++)
        await createNetwork(s, project, networkName(k), { ipFamilies: [family] });
    }
    for (const project of projects) {
      const locationBindings = s.client(planeOf(project), LOCATION_BINDINGS);
      await until(
        async () => (await locationBindings.list()).items.length === args.locations,
        60_000,
        `the location projector to bind ${project} to every location`,
      );
    }
    const before = await quietRevisions(s);
    console.log(
      `${family}: setup (${args.projects} projects, ${args.locations} locations, ` +
        `${networksPerProject * args.projects} networks) ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
    );

    const bindings = s.client<NetworkBinding>('hub', NETWORK_BINDINGS);
    const sentAt = new Map<string, number>();
    const readyAt = new Map<string, number>();
    let allReady: () => void = () => {};
    const converged = new Promise<void>((resolve) => (allReady = resolve));
    const { resourceVersion } = await bindings.list();
    const watch = await bindings.watch(
      { resourceVersion },
      (type, object) => {
        if (type !== 'ADDED' && type !== 'MODIFIED') return;
        const key = `${object.metadata.namespace}/${object.metadata.name}`;
        if (readyAt.has(key) || readyOf(object)?.status !== 'True') return;
        readyAt.set(key, performance.now());
        if (readyAt.size === args.bindings) allReady();
      },
      (err) => {
        if (err) console.error(`hub watch ended: ${err.message}`);
      },
    );

    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: args.concurrency }, async () => {
        while (next < args.bindings) {
          const i = next++;
          const where = placement(i, args);
          const namespace = hubNamespaces[where.project];
          const name = `b-${i}`;
          sentAt.set(`${namespace}/${name}`, performance.now());
          await bindings.create(
            binding(name, namespace, networkName(where.network), locationName(where.location)),
          );
        }
      }),
    );
    const created = performance.now();
    await within(converged, args.timeout * 1000);
    const last = performance.now();
    watch.abort();
    const after = await quietRevisions(s);

    const latencies = [...readyAt].map(([key, at]) => at - sentAt.get(key)!).sort((a, b) => a - b);
    const convergeMs = Math.max(...readyAt.values()) - started;
    console.log(
      `${family}: ${args.bindings} bindings (${args.concurrency} concurrent creates, all sent in ` +
        `${((created - started) / 1000).toFixed(1)} s): ${readyAt.size}/${args.bindings} Ready` +
        (readyAt.size < args.bindings ? ` after ${((last - started) / 1000).toFixed(0)} s (timed out)` : ''),
    );
    if (latencies.length > 0) {
      console.log(
        `${family}: binding→Ready p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms; ` +
          `converged in ${(convergeMs / 1000).toFixed(1)} s; ` +
          `${((after - before) / args.bindings).toFixed(1)} API writes per binding (${after - before} over ${s.server.planeNames().length} planes)`,
      );
    }
  } finally {
    await s.stop();
  }
}

const args = parseArgs(process.argv.slice(2));
const pairs = args.projects * args.locations;
console.log(
  `scheme: binding i → pair j = i mod ${pairs}: project bench-p(j mod ${args.projects}), ` +
    `location loc-⌊j/${args.projects}⌋, network net-⌊i/${pairs}⌋ ` +
    `(${args.bindings} distinct (project, network, location) triples, one NetworkContext each)`,
);
if (args.family !== 'IPv4') await run(args, 'IPv6');
if (args.family !== 'IPv6') await run(args, 'IPv4');
