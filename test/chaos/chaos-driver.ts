/**
 * The fleet under an operator's bad day: `netpresence up` on a data directory, a seeded random
 * driver creating, editing and deleting Networks, bindings and claims across two locations, the
 * fleet SIGKILLed at random moments and restarted on the same directory, and every invariant of
 * test/support/invariants.ts checked once it has converged.
 *
 * Guarantees: one seed gives one sequence of operations and kill delays (the fleet's own timing
 * still varies, so a seed reproduces the workload, not the interleaving); every failure message
 * starts with the seed; the driver never waits on a fixed sleep except the random run time before
 * a kill, which is the point of the exercise. Operations the fleet refuses (409, 404, 422) or that
 * a kill cuts off are counted and ignored: only the invariants judge the outcome.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startChildFleet, KINDS, FIXTURE_TOPOLOGY, type ChildFleet } from '../support/fleet.ts';
import { settledInvariants } from '../support/invariants.ts';

export const CHAOS_CELLS = ['cell-a', 'cell-b'];
const LOCATIONS = ['us-central-1', 'eu-west-1'];
const PROJECT = 'project-alpha';
const PROJECT_CONTEXT = `project-${PROJECT}`;
const NETWORKS = ['n0', 'n1', 'n2'];
const CLAIMS = ['c0', 'c1', 'c2', 'c3'];
const FAMILY_SETS = [['IPv6'], ['IPv4'], ['IPv6', 'IPv4'], ['IPv4', 'IPv6']];

/** The chaos fleet: fixture F's project with a second location served by `cell-b`. */
export function chaosConfig(): string {
  return stringify({
    projects: [{ name: PROJECT, organization: 'acme', networks: [{ name: 'vpc' }] }],
    locations: [
      { name: 'us-central-1', topology: FIXTURE_TOPOLOGY },
      {
        name: 'eu-west-1',
        topology: { 'topology.datum.net/city-code': 'DUB', 'topology.datum.net/region': 'europe-west1' },
      },
    ],
    cells: [
      { name: 'cell-a', location: 'us-central-1' },
      { name: 'cell-b', location: 'eu-west-1' },
    ],
  });
}

/** mulberry32: a small, seedable PRNG. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ChaosOptions {
  seed: number;
  kills: number;
  /** Random run time before each kill, in ms. */
  runMs: [number, number];
  /** How long the fleet may take to converge after the last restart. */
  settleMs: number;
  /** Called with a line of progress. */
  log?: (line: string) => void;
}

export interface ChaosResult {
  seed: number;
  killsSurvived: number;
  operations: number;
  refused: number;
  invariantChecks: number;
  violations: string[];
}

type Any = any;

/** One random operation of the driver on `fleet` (it may be refused: the caller counts that). */
export async function operate(
  fleet: ChildFleet,
  H: string,
  pick: <T>(items: readonly T[]) => T,
  rnd: () => number,
) {
  const networks = fleet.client<Any>(PROJECT_CONTEXT, KINDS.networks);
  const bindings = fleet.client<Any>('hub', KINDS.networkBindings);
  const cell = pick(CHAOS_CELLS);
  const claims = fleet.client<Any>(cell, KINDS.claims);
  const roll = rnd();
  const network = pick(NETWORKS);
  if (roll < 0.15)
    return networks.create({
      metadata: { name: network, namespace: 'default' },
      spec: { ipam: { mode: 'Auto' }, ipFamilies: pick(FAMILY_SETS) },
    });
  if (roll < 0.22) return networks.delete(network, 'default');
  if (roll < 0.3)
    return networks.patchMerge(network, 'default', { spec: { mtu: 1300 + Math.floor(rnd() * 7000) } });
  if (roll < 0.36) return networks.patchMerge(network, 'default', { spec: { ipFamilies: ['IPv4', 'IPv6'] } });
  if (roll < 0.56) {
    const location = pick(LOCATIONS);
    const name = `${network}-${location}-${pick(['a', 'b'])}`;
    return bindings.create({
      metadata: { name, namespace: H },
      spec: {
        network: { name: network },
        location: { name: location },
        consumer: { apiGroup: 'compute.datumapis.com', kind: 'WorkloadDeployment', name },
      },
    });
  }
  if (roll < 0.68) {
    const all = (await bindings.list({ namespace: H })).items;
    if (all.length > 0) return bindings.delete(pick(all).metadata.name, H);
    return undefined;
  }
  if (roll < 0.86)
    return claims.create({
      metadata: { name: pick(CLAIMS), namespace: H },
      spec: {
        network: { name: network },
        ipFamilies: pick(FAMILY_SETS).slice(0, 1 + Math.floor(rnd() * 2)),
        reclaimPolicy: pick(['Delete', 'Retain']),
      },
    });
  if (roll < 0.96) return claims.delete(pick(CLAIMS), H);
  // A retained interface let go.
  return fleet.client<Any>(cell, KINDS.interfaces).delete(pick(CLAIMS), H);
}

/** One chaos run; returns what happened and every violation found at the end. */
export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const rnd = random(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)];
  const log = options.log ?? (() => undefined);
  const dir = await mkdtemp(join(tmpdir(), 'netpresence-chaos-'));
  const dataDir = join(dir, 'data');
  const config = chaosConfig();
  const result: ChaosResult = {
    seed: options.seed,
    killsSurvived: 0,
    operations: 0,
    refused: 0,
    invariantChecks: 0,
    violations: [],
  };
  let fleet: ChildFleet | undefined;
  let failed = true;
  try {
    for (let round = 0; round <= options.kills; round++) {
      fleet = await startChildFleet({ config, dataDir, dir, timeoutMs: 180_000 });
      if (round > 0) result.killsSurvived++;
      if (round === options.kills) break;
      const H = await fleet.hubNamespace(PROJECT);
      const [low, high] = options.runMs;
      const stop = { now: false };
      const running = fleet;
      const worker = async () => {
        while (!stop.now) {
          result.operations++;
          await operate(running, H, pick, rnd).catch(() => result.refused++);
        }
      };
      const driving = Promise.all([worker(), worker(), worker(), worker()]);
      await new Promise((resolve) => setTimeout(resolve, low + rnd() * (high - low)));
      fleet.child.kill('SIGKILL');
      stop.now = true;
      await driving;
      await fleet.stop();
      log(
        `seed ${options.seed}: killed (${round + 1}/${options.kills}) after ${result.operations} operations`,
      );
    }
    const { violations, checks } = await settledInvariants(fleet!, CHAOS_CELLS, options.settleMs);
    result.invariantChecks += checks;
    result.violations = violations.map((v) => `seed ${options.seed}: ${v}`);
    failed = violations.length > 0;
    return result;
  } catch (err) {
    throw new Error(`seed ${options.seed}: ${(err as Error).message}`, { cause: err });
  } finally {
    await fleet?.stop();
    // A failed run's data directory is kept for a look (the path is printed).
    if (failed) log(`seed ${options.seed}: data directory kept at ${dataDir}`);
    else await rm(dir, { recursive: true, force: true });
  }
}
