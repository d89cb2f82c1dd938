/**
 * Model-based test at CI size: 25 random command sequences against one in-process fleet, each
 * checked against the model's predictions (each binding's Ready reason, each claim's Bound) and
 * the invariants once converged, then cleaned up. `MODEL_RUNS` and `MODEL_SEED` choose others;
 * bench/chaos runs 1,000. A failure prints fast-check's seed and the shrunk counterexample with
 * what differed.
 */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { runSequence, sequenceArbitrary, startModelFleet, type ModelFleet } from './fleet-model.ts';

const RUNS = Number(process.env.MODEL_RUNS ?? 25);
const SEED = Number(process.env.MODEL_SEED ?? 16);
/** A file to append one line per sequence to while the test runs (`MODEL_TRACE=/tmp/model.log`). */
const TRACE = process.env.MODEL_TRACE;
const TIME_LIMIT_MS = Number(process.env.MODEL_TIME_LIMIT_MS ?? 480_000);

describe('fleet model', () => {
  let fleet: ModelFleet;
  before(async () => {
    fleet = await startModelFleet();
  });
  after(async () => {
    await fleet?.stop();
  });

  it(
    `${RUNS} random command sequences converge to the model and keep every invariant (seed ${SEED})`,
    { timeout: TIME_LIMIT_MS + 120_000 },
    async (t) => {
      let sequence = 0;
      const predicted: Record<string, number> = {};
      await fc.assert(
        fc.asyncProperty(sequenceArbitrary, async (commands) => {
          const prefix = `s${sequence++}-`;
          const outcome = await runSequence(fleet, prefix, commands, 20_000);
          if (TRACE)
            appendFileSync(
              TRACE,
              `${new Date().toISOString()} ${prefix} ${JSON.stringify(commands)} ${JSON.stringify(outcome)}\n`,
            );
          for (const [what, count] of Object.entries(outcome.predicted))
            predicted[what] = (predicted[what] ?? 0) + count;
          assert.deepEqual(outcome.mismatches, [], 'the fleet converged to the model');
          assert.deepEqual(outcome.violations, [], 'the invariants hold');
        }),
        {
          numRuns: RUNS,
          seed: SEED,
          verbose: 1,
          includeErrorInReport: true,
          // Shrinking re-runs sequences of up to a minute each: stop it (reporting the smallest
          // counterexample so far) before the test's own timeout; running out of time fails.
          interruptAfterTimeLimit: TIME_LIMIT_MS,
          markInterruptAsFailure: true,
        },
      );
      t.diagnostic(`predictions checked: ${JSON.stringify(predicted)}`);
      // At CI size the sequences must predict the states worth checking, not only absences.
      if (RUNS >= 25) {
        assert.ok((predicted.NetworkContextReady ?? 0) > 0, 'some binding was predicted Ready');
        assert.ok((predicted.claimBound ?? 0) > 0, 'some claim was predicted Bound');
      }
    },
  );
});
