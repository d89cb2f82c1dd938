/**
 * bench/chaos: the long runs of the crash-safety tests (test/chaos).
 *
 * - kills: `netpresence up` on a data directory, a seeded random driver (Networks, bindings and
 *   claims across two locations), SIGKILLed `--kills` times at random moments and restarted on the
 *   same directory; at the end every invariant of test/support/invariants.ts is checked once the
 *   fleet converged;
 * - model: `--runs` random command sequences (fast-check) against one in-process fleet, each
 *   checked against the model's predictions and the invariants; a failure prints fast-check's
 *   seed and the shrunk counterexample.
 * - processes: the split fleet (test/support/split-fleet.ts), the API server (`up
 *   --stand-ins-only`, restarted on its data directory and port), `manager`, `propagator` and
 *   each cell SIGKILLed apart `--kills` times each while the driver works, every invariant
 *   checked after each process's series (not part of `both`).
 * Prints: kills survived, operations run, invariant checks, violations (each naming its seed).
 *
 * Usage: npm run bench:chaos -- [--mode kills|model|both|processes] [--kills N] [--seed S] [--runs N]
 */
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { runChaos } from '../../test/chaos/chaos-driver.ts';
import { runProcessKills } from '../../test/chaos/process-kills.ts';
import { runSequence, sequenceArbitrary, startModelFleet } from '../../test/chaos/fleet-model.ts';
import { parseFlags } from '../flags.ts';

const flags = parseFlags(
  process.argv.slice(2),
  { mode: 'both', kills: 50, seed: Date.now() % 2 ** 31, runs: 1000 },
  { mode: ['kills', 'model', 'both', 'processes'] },
);

async function kills(): Promise<number> {
  const started = Date.now();
  const result = await runChaos({
    seed: flags.seed,
    kills: flags.kills,
    runMs: [500, 5000],
    settleMs: 180_000,
    log: (line) => console.log(line),
  });
  console.log(
    `kills: seed ${result.seed}; ${result.killsSurvived}/${flags.kills} kills survived; ${result.operations} operations ` +
      `(${result.refused} refused or cut off); ${result.invariantChecks} invariant checks; ` +
      `${result.violations.length} violations; ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  for (const violation of result.violations) console.log(`  ${violation}`);
  return result.violations.length;
}

async function model(): Promise<number> {
  const started = Date.now();
  const fleet = await startModelFleet();
  let sequence = 0;
  let commands = 0;
  let checks = 0;
  let failures = 0;
  try {
    const report = await fc.check(
      fc.asyncProperty(sequenceArbitrary, async (sequenceCommands) => {
        commands += sequenceCommands.length;
        const prefix = `s${sequence++}-`;
        const outcome = await runSequence(fleet, prefix, sequenceCommands, 30_000);
        checks += outcome.invariantChecks;
        // MODEL_TRACE=<file>: one line per sequence (its commands and outcome), to replay a failure.
        if (process.env.MODEL_TRACE)
          appendFileSync(
            process.env.MODEL_TRACE,
            `${new Date().toISOString()} ${prefix} ${JSON.stringify(sequenceCommands)} ${JSON.stringify(outcome)}\n`,
          );
        if (sequence % 50 === 0)
          console.log(
            `model: ${sequence} sequences, ${commands} commands, ${checks} invariant checks, ` +
              `${failures} failing so far, ${((Date.now() - started) / 1000).toFixed(0)} s`,
          );
        if (outcome.mismatches.length + outcome.violations.length > 0) {
          failures++;
          throw new Error([...outcome.mismatches, ...outcome.violations].join('\n'));
        }
      }),
      { numRuns: flags.runs, seed: flags.seed },
    );
    console.log(
      `model: seed ${flags.seed}; ${report.numRuns} sequences, ${commands} commands; ${checks} invariant checks; ` +
        `${report.failed ? 'FAILED' : '0 violations'}; ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    if (report.failed)
      console.log(
        `  counterexample (shrunk): ${JSON.stringify(report.counterexample)}\n  ${String(report.errorInstance)}`,
      );
    return report.failed ? Math.max(1, failures) : 0;
  } finally {
    await fleet.stop();
  }
}

async function processes(): Promise<number> {
  const started = Date.now();
  const result = await runProcessKills({
    seed: flags.seed,
    kills: flags.kills,
    runMs: [500, 5000],
    downMs: [0, 3000],
    settleMs: 180_000,
    log: (line) => console.log(line),
  });
  console.log(
    `processes: seed ${result.seed}; kills survived ${JSON.stringify(result.killsSurvived)} of ${flags.kills} each; ` +
      `${result.operations} operations (${result.refused} refused or cut off); ${result.invariantChecks} invariant checks; ` +
      `${result.violations.length} violations; ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  for (const violation of result.violations) console.log(`  ${violation}`);
  return result.violations.length;
}

let violations = 0;
if (flags.mode === 'processes') violations += await processes();
else {
  if (flags.mode !== 'model') violations += await kills();
  if (flags.mode !== 'kills') violations += await model();
}
process.exit(violations === 0 ? 0 : 1);
