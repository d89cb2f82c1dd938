/**
 * Setting a condition (controllers.md §0): the one way every controller changes a condition on
 * an object's status, so all of them agree on when a condition moves and when its time does.
 *
 * Guarantees: `setCondition` returns the list unchanged (the same array) when the condition
 * already has the desired `status`, `reason`, `message` and `observedGeneration`; otherwise a new
 * list, in the same order, with only that condition replaced (or appended when absent).
 * `lastTransitionTime` becomes `now` only when `status` changes, or when the condition is new;
 * a change of reason, message or generation alone keeps the old time. Other conditions are
 * never touched.
 *
 * Example: Ready True/Ready/"a" at t0, set to True/Ready/"b" at t1 → message "b", time t0;
 * then False/RangeOccupied at t2 → time t2.
 */
import type { Condition, ConditionStatus } from '../apis/common/condition.ts';

/** The `Ready` type, and the reason of a True `Ready`, on every kind netpresence writes it on. */
const READY = 'Ready';

export interface DesiredCondition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

let lastSecond = NaN;
let lastText = '';

/**
 * A condition timestamp: RFC 3339 in UTC with whole seconds, as metav1.Time serialises; formatted
 * once per second (every condition a burst writes in one second carries the same text).
 */
export function conditionTime(now: number): string {
  const second = Math.floor(now / 1000);
  if (second !== lastSecond) {
    // An invalid time is never remembered (NaN differs from itself): toISOString throws for it.
    lastText = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = second;
  }
  return lastText;
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/**
 * `conditions` with `desired` set on it, for an object at `generation`, at time `now` (ms).
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  desired: DesiredCondition,
  generation: number | undefined,
  now: number,
): Condition[] {
  const list = conditions ?? [];
  const held = findCondition(list, desired.type);
  if (
    held &&
    held.status === desired.status &&
    held.reason === desired.reason &&
    held.message === desired.message &&
    held.observedGeneration === generation
  )
    return list as Condition[];
  const next: Condition = {
    type: desired.type,
    status: desired.status,
    reason: desired.reason,
    message: desired.message,
    lastTransitionTime: held && held.status === desired.status ? held.lastTransitionTime : conditionTime(now),
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  return held ? list.map((condition) => (condition === held ? next : condition)) : [...list, next];
}

/**
 * `Ready` as it follows one input condition (the networks' and contexts' `IPAMAllocated`): the
 * input's message; its status and reason when it is not True; True/`Ready` when it is. Without
 * the input, `Ready` is True/`Ready` with `message`.
 */
export function readyFollowing(input: Condition | undefined, message: string): DesiredCondition {
  if (!input) return { type: READY, status: 'True', reason: READY, message };
  if (input.status === 'True') return { type: READY, status: 'True', reason: READY, message: input.message };
  return { type: READY, status: input.status, reason: input.reason, message: input.message };
}
