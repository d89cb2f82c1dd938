/**
 * Chaos at CI size: `netpresence up` on a data directory, SIGKILLed at random moments while a
 * seeded driver changes Networks, bindings and claims, restarted on the same directory; at the
 * end every invariant holds. Two seeds × five kills (`CHAOS_SEEDS=1,2,…` to choose others);
 * bench/chaos runs the long version. Every failure message starts with its seed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runChaos } from './chaos-driver.ts';

const SEEDS = (process.env.CHAOS_SEEDS ?? '1,2').split(',').map(Number);
const KILLS = 5;

describe('fleet chaos', () => {
  for (const seed of SEEDS) {
    it(
      `seed ${seed}: ${KILLS} SIGKILLs mid-convergence leave every invariant holding`,
      { timeout: 600_000 },
      async (t) => {
        const result = await runChaos({ seed, kills: KILLS, runMs: [500, 4000], settleMs: 120_000 });
        t.diagnostic(
          `seed ${seed}: ${result.killsSurvived} kills survived, ${result.operations} operations ` +
            `(${result.refused} refused or cut off), ${result.invariantChecks} invariant checks`,
        );
        assert.equal(result.killsSurvived, KILLS, `seed ${seed}: every restart came up`);
        assert.ok(
          result.operations - result.refused > KILLS,
          `seed ${seed}: the driver's operations were accepted (${result.operations - result.refused})`,
        );
        assert.deepEqual(result.violations, [], `seed ${seed}: invariants violated`);
      },
    );
  }
});
