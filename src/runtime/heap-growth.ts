/**
 * How far a netpresence process lets each V8 old generation grow past what it holds before the
 * next full collection.
 *
 * After a full collection V8 sets the next one's threshold at the live heap times a factor it
 * derives from how fast the thread allocates against how fast it collects: up to 4 on a machine
 * with this much memory. netpresence's threads allocate fast (every watch event decoded, every
 * write built), so with V8's own factor a 10,000-binding burst on the embedded fleet held about
 * 1.25 GiB and peaked at 2.2–3.0 GiB of RSS, from run to run of one tree, as each heap grew to
 * up to twice its live set before it was collected (bench/README.md, "What a burst's memory is").
 * With a fixed factor of 1.38 the same burst peaked at 1956–1968 MiB, for 4–7 % more CPU (V8's
 * helper threads mark more often) and about 5 % more time; 1.3 took 13 % more CPU, 1.45 peaked at
 * 1990–2046 MiB and 1.6 at 2060 MiB ("The heap's growth", same file).
 *
 * Guarantees:
 * - `setHeapGrowth()` sets V8's `--heap-growing-percent` to `HEAP_GROWING_PERCENT` for the whole
 *   process, its worker threads included, unless node was started with that flag, which is kept;
 * - it limits nothing: a heap still grows with what it holds, as far as the machine allows (unlike
 *   `--max-old-space-size`, there is no ceiling to run into); collections only come sooner.
 * Caveat: node calls changing V8's flags once it runs unspecified; V8 reads this one each time it
 * sizes a generation, so set at start it takes effect (the bench's peak RSS is what shows it).
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation's growth past its live set, in percent: a factor of 1.38. */
export const HEAP_GROWING_PERCENT = 38;

/** The V8 flag to set, or undefined when `execArgv` (node's own options) already sets it. */
export function heapGrowthFlag(execArgv: readonly string[]): string | undefined {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg))) return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Sets the growth for this process, unless node was started with a growth of its own. */
export function setHeapGrowth(): void {
  const flag = heapGrowthFlag(process.execArgv);
  if (flag) setFlagsFromString(flag);
}
