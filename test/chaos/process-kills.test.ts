/**
 * Each separate process killed apart, at CI size: on the split fleet, the API server (`up
 * --stand-ins-only`, restarted on its data directory and port), `manager`, `propagator`,
 * `cell-a` and `cell-b` each SIGKILLed once at a random moment while the seeded driver works,
 * started again, and every invariant checked at quiescence after each process's kill
 * (`PROCESS_KILLS_SEED` chooses another seed); bench/chaos `--mode processes` runs more kills.
 * Every failure message starts with the seed and names the process.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KILLABLE, runProcessKills } from './process-kills.ts';

const SEED = Number(process.env.PROCESS_KILLS_SEED ?? 1);

describe('process kills', () => {
  it(
    `seed ${SEED}: the API server, manager, propagator and each cell SIGKILLed apart leave every invariant holding`,
    { timeout: 900_000 },
    async (t) => {
      const result = await runProcessKills({
        seed: SEED,
        kills: 1,
        runMs: [500, 3000],
        downMs: [0, 2000],
        settleMs: 120_000,
      });
      t.diagnostic(
        `seed ${SEED}: kills survived ${JSON.stringify(result.killsSurvived)}, ${result.operations} operations ` +
          `(${result.refused} refused or cut off), accepted after each restart ${JSON.stringify(result.acceptedAfterRestart)}, ` +
          `${result.invariantChecks} invariant checks`,
      );
      assert.deepEqual(
        result.killsSurvived,
        Object.fromEntries(KILLABLE.map((name) => [name, 1])),
        `seed ${SEED}: every process came back`,
      );
      assert.ok(
        result.operations - result.refused > KILLABLE.length,
        `seed ${SEED}: the driver's operations were accepted (${result.operations - result.refused})`,
      );
      for (const name of KILLABLE) {
        assert.ok(
          result.acceptedAfterRestart[name] > 0,
          `seed ${SEED}: operations were accepted after ${name}'s restart (${result.acceptedAfterRestart[name]})`,
        );
      }
      assert.deepEqual(result.violations, [], `seed ${SEED}: invariants violated`);
    },
  );
});
