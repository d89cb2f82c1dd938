/** A state in words and colour, never colour alone. */
import type { ConditionView } from './api.ts';

export function StateBadge({ state, words }: { state: string; words: string }) {
  return <span class={`state state-${state}`}>{words}</span>;
}

/** `Ready=True Ready` for a condition, or `—`. */
export function conditionWords(type: string, condition: ConditionView | undefined): string {
  return condition ? `${type}=${condition.status} ${condition.reason}` : `${type} —`;
}

export function conditionState(condition: ConditionView | undefined): string {
  if (!condition) return 'unbound';
  if (condition.status === 'True') return 'ready';
  return condition.status === 'False' ? 'refused' : 'waiting';
}

export { cellHref, pairHref } from '../links.ts';
