/**
 * What every bench program shares: `--name value` flags over typed defaults, and percentiles.
 *
 * Guarantees: a flag not among the defaults, a number flag that is not a positive integer, and
 * a choice flag outside its choices are refused with an error naming the flag; `--help` prints
 * every flag with its default (and choices) and exits 0.
 */

/** Parses `argv` over `defaults`; a string flag listed in `choices` must take one of them. */
export function parseFlags<T extends { [K in keyof T]: number | string }>(
  argv: string[],
  defaults: T,
  choices: Partial<Record<keyof T, string[]>> = {},
): T {
  const flags: Record<string, number | string> = { ...defaults };
  if (argv.includes('--help') || argv.includes('-h')) {
    for (const [key, value] of Object.entries(flags)) {
      const allowed = choices[key as keyof T];
      console.log(
        `--${key} (default ${JSON.stringify(value)}${allowed ? `; one of ${allowed.join(', ')}` : ''})`,
      );
    }
    process.exit(0);
  }
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    const value = argv[i + 1];
    if (!(key in defaults)) throw new Error(`unknown flag ${argv[i]}`);
    const allowed = choices[key as keyof T];
    if (allowed) {
      if (!allowed.includes(value)) throw new Error(`${argv[i]} wants one of ${allowed.join(', ')}`);
      flags[key] = value;
      continue;
    }
    if (typeof defaults[key as keyof T] === 'string') {
      if (value === undefined) throw new Error(`${argv[i]} wants a value`);
      flags[key] = value;
      continue;
    }
    const number = Number(value);
    if (!Number.isInteger(number) || number < 1) throw new Error(`${argv[i]} wants a positive integer`);
    flags[key] = number;
  }
  return flags as T;
}

/** The p-th percentile of an ascending list (nearest rank, never past the end). */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Waits for `done`, or `ms` at most; resolves true when `done` settled first. The timer is
 * cleared either way, so a bench that has finished exits at once instead of waiting it out.
 */
export async function within(done: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([done.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
