/**
 * How far a netpresence process lets each V8 old generation grow past what it holds before the
 * next full collection: as far as its memory limit leaves room for, and never past twice.
 *
 * After a full collection V8 sets the next one's threshold at the live heap times a factor
 * (`--heap-growing-percent`, 1 + percent / 100). The fewer full collections a burst meets while it
 * builds the heaps, the less CPU V8's marking costs: on the embedded fleet, a 10,000-binding burst
 * used about 12 % less CPU and time with a factor of 2 than with the fixed 1.38 this module set
 * before, and peaked 150 MiB higher (1,690 MiB); but 30,000 bindings then peaked at 4,602 MiB,
 * where 1.38 kept them under 4 GiB (bench/README.md, session 28). So the factor follows
 * the headroom, as Go's GOMEMLIMIT does: with R the process's resident memory and L its limit,
 * the percent is (L − R) / R × 100, at most `MAX_GROWING_PERCENT` and at least
 * `MIN_GROWING_PERCENT`. Above the floor, every heap's growth is at most that share of what it
 * holds, and together they hold less than R, so a heap collected now cannot by itself take the
 * process past L; at the floor (from about L / 1.38 on) collections come as often as they did
 * before, and L is a target, not a bound.
 *
 * The limit L: `NETPRESENCE_MEMORY_LIMIT` (bytes, or a number with `Ki`, `Mi`, `Gi`), else the
 * container's (cgroup v2 `memory.max`, v1 `memory.limit_in_bytes`), else `DEFAULT_MEMORY_LIMIT`.
 *
 * Guarantees:
 * - `startHeapGrowth()` sets V8's `--heap-growing-percent` for the whole process, its worker
 *   threads included, from the resident memory now, and again each second when the percent has
 *   moved by `PERCENT_STEP` or more, or reached a bound (an unref'd timer: it keeps no process
 *   alive) — unless node was started with that flag, which is then kept and nothing runs;
 * - it limits nothing: a heap still grows with what it holds, past L if it must (unlike
 *   `--max-old-space-size`, there is no ceiling to run into); collections only come sooner;
 * - a `NETPRESENCE_MEMORY_LIMIT` that is not a size stops the process with an error naming it.
 * Caveat: node calls changing V8's flags once it runs unspecified; V8 reads this one each time it
 * sizes a generation (the bench's peak RSS is what shows it takes effect). A new percent applies
 * to each heap from its next full collection on.
 */
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

/** The most an old generation may grow past its live set, in percent: a factor of 2. */
export const MAX_GROWING_PERCENT = 100;
/**
 * The least, in percent, however little room is left: the fixed growth every process had before
 * (a factor of 1.38), so no process collects more often than it did then. With V8's own floor
 * (10 %) instead, 30,000 bindings peaked at 3,610 MiB rather than 3,852, for more marking (V8's
 * helper threads 19.4 s each against 15.4) and no less time.
 */
export const MIN_GROWING_PERCENT = 38;
/** The memory limit where neither the environment nor a container sets one. */
export const DEFAULT_MEMORY_LIMIT = 4 * 1024 ** 3;
/** The percent is set again when it has moved this far. */
export const PERCENT_STEP = 5;

export const MEMORY_LIMIT_VARIABLE = 'NETPRESENCE_MEMORY_LIMIT';

/** The growth, in percent, that resident memory `rss` leaves under `limit` (both in bytes). */
export function growingPercent(rss: number, limit: number): number {
  const percent = Math.floor(((limit - rss) / Math.max(rss, 1)) * 100);
  return Math.min(MAX_GROWING_PERCENT, Math.max(MIN_GROWING_PERCENT, percent));
}

const UNITS: Record<string, number> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** Bytes of a size written as Kubernetes writes memory: `536870912`, `512Mi`, `4Gi`. */
export function parseSize(text: string): number | undefined {
  const match = /^\s*(\d+)(Ki|Mi|Gi)?\s*$/.exec(text);
  if (!match) return undefined;
  const bytes = Number(match[1]) * UNITS[match[2] ?? ''];
  return bytes > 0 && Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** A container's memory limit in bytes from the text of its cgroup file; none when unlimited. */
export function cgroupLimit(text: string | undefined): number | undefined {
  const value = text?.trim();
  if (!value || value === 'max') return undefined;
  const bytes = Number(value);
  // cgroup v1 writes "no limit" as the largest page-aligned 64-bit number.
  return Number.isFinite(bytes) && bytes > 0 && bytes < 2 ** 60 ? bytes : undefined;
}

const CGROUP_FILES = ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes'];

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The process's memory limit, as the module's comment orders the sources. */
export function memoryLimit(
  env: NodeJS.ProcessEnv = process.env,
  read: (path: string) => string | undefined = readIfPresent,
): number {
  const given = env[MEMORY_LIMIT_VARIABLE];
  if (given !== undefined && given !== '') {
    const bytes = parseSize(given);
    if (bytes === undefined)
      throw new Error(
        `${MEMORY_LIMIT_VARIABLE}: ${JSON.stringify(given)} is not a size (bytes, or a whole number with Ki, Mi or Gi)`,
      );
    return bytes;
  }
  for (const path of CGROUP_FILES) {
    const bytes = cgroupLimit(read(path));
    if (bytes !== undefined) return bytes;
  }
  return DEFAULT_MEMORY_LIMIT;
}

/** Whether node's own options (`execArgv`) set the growth already. */
export function growthGiven(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg));
}

/**
 * Follows the headroom for this process, unless node was started with a growth of its own;
 * `set` applies a percent (V8's flag), `rss` reads the resident memory.
 */
export function startHeapGrowth(
  limit = memoryLimit(),
  set: (percent: number) => void = (percent) => setFlagsFromString(`--heap-growing-percent=${percent}`),
  rss: () => number = () => process.memoryUsage.rss(),
  execArgv: readonly string[] = process.execArgv,
): { stop(): void } {
  if (growthGiven(execArgv)) return { stop: () => undefined };
  let current = growingPercent(rss(), limit);
  set(current);
  const timer = setInterval(() => {
    const percent = growingPercent(rss(), limit);
    const bound = percent === MIN_GROWING_PERCENT || percent === MAX_GROWING_PERCENT;
    if (percent === current || (!bound && Math.abs(percent - current) < PERCENT_STEP)) return;
    current = percent;
    set(percent);
  }, 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
