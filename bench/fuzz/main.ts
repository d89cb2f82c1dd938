/**
 * `npm run bench:fuzz -- [--runs N] [--seed S]`: the write fuzzer of test/e2e/apiserver-fuzz for
 * longer (10,000 cases by default). Prints the seed first and the answers by status at the end;
 * exits 1 with fast-check's counterexample when the server answers 5xx, stops answering, or
 * changes something outside a request's object.
 */
import { parseFlags } from '../flags.ts';
import { runFuzz } from '../../test/support/fuzz.ts';

const flags = parseFlags(process.argv.slice(2), { runs: 10_000, seed: Date.now() % 2 ** 31 });
try {
  await runFuzz(flags.runs, flags.seed);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
