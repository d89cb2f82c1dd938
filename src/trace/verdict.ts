/**
 * The verdict of a trace: the first hop, in data-flow order, that is missing, refusing, waiting
 * or unreadable — or, when that hop is an object reporting a refusal whose reason points at
 * another hop that is failing too, that other hop, since it is what to fix.
 *
 * Guarantees: no verdict means every hop is `ok` (an `unchecked` hop only follows a failing one,
 * so it never stands alone); a verdict always carries advice. A refusal whose cause hops all look
 * fine now stays on the reporting object, whose advice then says the report is stale.
 *
 * Example: binding `LocationNotAvailable` (causes: location-binding) with LocationBinding
 * `us-central-1` missing → the verdict is the location binding hop, reported by the binding.
 */
import { advice } from './advice.ts';
import type { Hop } from './hop.ts';

export interface Verdict {
  hop: Hop;
  /** The object whose refusal pointed at `hop`, when that is another hop. */
  reportedBy?: Hop;
}

const failing = (hop: Hop): boolean => hop.state !== 'ok' && hop.state !== 'unchecked';

export function verdictOf(hops: readonly Hop[]): Verdict | undefined {
  const first = hops.find(failing);
  if (!first) return undefined;
  for (const id of first.causes ?? []) {
    const cause = hops.find((hop) => hop.id === id && hop !== first && failing(hop));
    if (cause) return { hop: withAdvice(cause), reportedBy: first };
  }
  return { hop: withAdvice(first) };
}

/** A plane that could not be read needs no more advice than that. */
function withAdvice(hop: Hop): Hop {
  return hop.advice ? hop : { ...hop, advice: advice.planeUnreadable(hop.plane) };
}

/** The process exit code of a trace: 0 when every hop is present and Ready, else 1. */
export function exitCodeOf(hops: readonly Hop[]): 0 | 1 {
  return hops.some((hop) => hop.state !== 'ok') ? 1 : 0;
}
