/**
 * Each process of the split fleet killed apart: `netpresence up --stand-ins-only` serves the
 * planes (test/support/split-fleet.ts) while `netpresence manager`, `propagator` and one `cell`
 * per cell run as processes of their own under config/rbac; the seeded driver of chaos-driver.ts
 * changes Networks, bindings and claims while one process at a time is SIGKILLed at a random
 * moment and started again; after each process's series of kills, every invariant of
 * test/support/invariants.ts is checked once the fleet has converged.
 *
 * Guarantees: one seed gives one sequence of operations, kill delays and down times (the
 * processes' timing still varies); every failure message starts with the seed and names the
 * process whose series it followed; a failed run keeps its directory (logs, audit log, kubeconfigs)
 * and prints its path.
 * The API server is killed apart too (`apiserver`): `up --stand-ins-only` on its data directory,
 * SIGKILLed and started again on the same directory and port; the processes' tokens are signed
 * with that directory's key (src/apiserver/auth/token-request.ts), so they keep working, and the
 * processes must reconnect by themselves (relist, rewatch, renew or retake their Leases).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settledInvariants } from '../support/invariants.ts';
import { APISERVER, startSplitFleet, type SplitFleet } from '../support/split-fleet.ts';
import { CHAOS_CELLS, chaosConfig, operate, random } from './chaos-driver.ts';

const PROJECT = 'project-alpha';
/** The processes a run kills, in order: each gets its own series. */
export const KILLABLE = [APISERVER, 'manager', 'propagator', ...CHAOS_CELLS];

export interface ProcessKillOptions {
  seed: number;
  /** Kills per process. */
  kills: number;
  /** Random run time before each kill, in ms. */
  runMs: [number, number];
  /** Random time a killed process stays down while the driver goes on, in ms. */
  downMs: [number, number];
  /** How long the fleet may take to converge after a series. */
  settleMs: number;
  /** The processes to kill (default: every one of KILLABLE). */
  processes?: string[];
  log?: (line: string) => void;
}

export interface ProcessKillResult {
  seed: number;
  /** Kills survived (the process came back), by process. */
  killsSurvived: Record<string, number>;
  /** Operations accepted after the last restart of each process, before its invariants. */
  acceptedAfterRestart: Record<string, number>;
  operations: number;
  refused: number;
  invariantChecks: number;
  violations: string[];
}

/** One run: a split fleet, each process killed `kills` times apart, invariants after each series. */
export async function runProcessKills(options: ProcessKillOptions): Promise<ProcessKillResult> {
  const rnd = random(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)];
  const between = ([low, high]: [number, number]) => low + rnd() * (high - low);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const log = options.log ?? (() => undefined);
  const processes = options.processes ?? KILLABLE;
  const result: ProcessKillResult = {
    seed: options.seed,
    killsSurvived: Object.fromEntries(processes.map((name) => [name, 0])),
    acceptedAfterRestart: Object.fromEntries(processes.map((name) => [name, 0])),
    operations: 0,
    refused: 0,
    invariantChecks: 0,
    violations: [],
  };
  const dir = await mkdtemp(join(tmpdir(), 'netpresence-process-kills-'));
  let split: SplitFleet | undefined;
  let failed = true;
  try {
    split = await startSplitFleet({
      config: chaosConfig(),
      cells: CHAOS_CELLS,
      projects: [PROJECT],
      dir,
      restartableServer: true,
    });
    const running = split;
    const H = await running.fleet.hubNamespace(PROJECT);
    let acceptedOps = 0;
    for (const name of processes) {
      const stop = { now: false };
      // While the API server is down the workers wait: every request would be refused at once.
      const server = { down: false };
      const worker = async () => {
        while (!stop.now) {
          if (server.down) {
            await sleep(100);
            continue;
          }
          result.operations++;
          await operate(running.fleet, H, pick, rnd).then(
            () => acceptedOps++,
            () => result.refused++,
          );
        }
      };
      const driving = Promise.all([worker(), worker(), worker(), worker()]);
      try {
        for (let kill = 0; kill < options.kills; kill++) {
          await sleep(between(options.runMs));
          server.down = name === APISERVER;
          await split.kill(name, 'SIGKILL');
          await sleep(between(options.downMs));
          await split.restart(name);
          server.down = false;
          result.killsSurvived[name]++;
          log(
            `seed ${options.seed}: ${name} killed and back (${kill + 1}/${options.kills}), ${result.operations} operations`,
          );
        }
        // The driver goes on a while after the last restart: what it changes then is converged
        // only if every process reached the API server again (after its restart, the others).
        // It runs at least until one operation is accepted (bounded: a server that stays
        // unreachable leaves the count at 0, which the test reports).
        const before = acceptedOps;
        const accepted = () => acceptedOps - before;
        await sleep(between(options.runMs));
        const bound = performance.now() + 60_000;
        while (accepted() === 0 && performance.now() < bound) await sleep(100);
        result.acceptedAfterRestart[name] = accepted();
      } finally {
        stop.now = true;
        await driving;
      }
      const { violations, checks } = await settledInvariants(running.fleet, CHAOS_CELLS, options.settleMs);
      result.invariantChecks += checks;
      result.violations.push(...violations.map((v) => `seed ${options.seed}, after ${name}'s kills: ${v}`));
      log(`seed ${options.seed}: ${name}'s series: ${violations.length} violations, ${checks} checks`);
    }
    failed = result.violations.length > 0;
    return result;
  } catch (err) {
    throw new Error(`seed ${options.seed}: ${(err as Error).message}`, { cause: err });
  } finally {
    await split?.dispose();
    if (failed) log(`seed ${options.seed}: run directory kept at ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  }
}
