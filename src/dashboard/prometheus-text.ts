/**
 * A reader of the Prometheus text exposition format (version 0.0.4), enough for the dashboard to
 * sum gauges and histograms scraped from the processes' `/metrics`.
 *
 * Guarantees: every sample line yields one sample with its name, labels (escapes `\\`, `\"`, `\n`
 * undone) and value (`+Inf`, `-Inf`, `NaN` understood); comments, blank lines and lines that are
 * not samples are skipped, never thrown on; a timestamp after the value is ignored.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?\s*$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"/g;

export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line.trim());
    if (!match) continue;
    const value = parseValue(match[3]);
    if (value === undefined) continue;
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(LABEL))
      labels[key] = raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1], labels, value });
  }
  return samples;
}

function parseValue(text: string): number | undefined {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const value = Number(text);
  return Number.isNaN(value) ? undefined : value;
}

/** The sum of every sample named `name` (a gauge or counter over all its series). */
export function sumOf(samples: Sample[], name: string): number | undefined {
  const matching = samples.filter((sample) => sample.name === name);
  return matching.length ? matching.reduce((sum, sample) => sum + sample.value, 0) : undefined;
}

/** The cumulative buckets of histogram `name`, summed over series, by `le` ascending (+Inf last). */
export function histogramOf(samples: Sample[], name: string): { le: number; count: number }[] {
  const byLe = new Map<number, number>();
  for (const sample of samples) {
    if (sample.name !== `${name}_bucket` || sample.labels.le === undefined) continue;
    const le = parseValue(sample.labels.le);
    if (le === undefined) continue;
    byLe.set(le, (byLe.get(le) ?? 0) + sample.value);
  }
  return [...byLe].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le);
}
