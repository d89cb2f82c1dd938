/**
 * Rendering a trace: one line per hop — its state, its name, the plane and object, and the
 * condition that judges it — then one verdict line saying which hop to fix and how.
 *
 * Guarantees: the hop names and objects line up in columns; a hop's note follows its line,
 * indented; the last line starts with `verdict:` and is the same words the tests assert.
 *
 * Example:
 *   ok       binding           hub                NetworkBinding ns-1/web  Ready=True NetworkContextReady
 *   MISSING  location binding  project-alpha      LocationBinding us-central-1
 *   verdict: location binding LocationBinding us-central-1 (project-alpha) is missing: …
 */
import { hopTitles, type Hop, type HopState } from './hop.ts';
import { verdictOf } from './verdict.ts';

const marks: Record<HopState, string> = {
  ok: 'ok',
  missing: 'MISSING',
  refusing: 'REFUSING',
  waiting: 'WAITING',
  unreachable: 'UNREADABLE',
  unchecked: '-',
};

const stateWords: Record<HopState, string> = {
  ok: 'is present and Ready',
  missing: 'is missing',
  refusing: 'refuses',
  waiting: 'is not Ready yet',
  unreachable: 'cannot be read',
  unchecked: 'was not checked',
};

export const verdictMessages = {
  allReady: 'verdict: every hop is present and Ready',
  reportedBy: (hop: Hop) => `${hop.object} reports ${hop.condition?.reason ?? hop.state}`,
};

function conditionText(hop: Hop): string {
  const condition = hop.condition;
  return condition ? `${condition.type}=${condition.status} ${condition.reason}` : '';
}

/** The lines a trace prints. */
export function renderTrace(hops: readonly Hop[]): string[] {
  const titleWidth = Math.max(...hops.map((hop) => hopTitles[hop.id].length));
  const planeWidth = Math.max(...hops.map((hop) => hop.plane.length));
  const lines: string[] = [];
  for (const hop of hops) {
    const columns = [
      marks[hop.state].padEnd(10),
      hopTitles[hop.id].padEnd(titleWidth),
      hop.plane.padEnd(planeWidth),
      hop.object,
    ];
    const condition = conditionText(hop);
    lines.push(`${columns.join('  ')}${condition ? `  ${condition}` : ''}`);
    const detail = hop.note ?? (hop.state === 'ok' ? undefined : hop.condition?.message);
    if (detail) lines.push(`${' '.repeat(12)}${detail}`);
  }
  lines.push(renderVerdict(hops));
  return lines;
}

export function renderVerdict(hops: readonly Hop[]): string {
  const verdict = verdictOf(hops);
  if (!verdict) return verdictMessages.allReady;
  const { hop, reportedBy } = verdict;
  const because = reportedBy ? ` (${verdictMessages.reportedBy(reportedBy)})` : '';
  return `verdict: ${hopTitles[hop.id]} ${hop.object} in ${hop.plane} ${stateWords[hop.state]}${because}: ${hop.advice ?? ''}`;
}
