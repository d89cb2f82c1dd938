/**
 * Conditions: the standard `metav1.Condition`, the conditions list, and the seeded status of
 * apis.md §0.
 *
 * Guarantees: a conditions list is a list-map keyed by `type`, so no object ever carries two
 * conditions of one type. `seededStatus(types)` is the `status` default of a seeded kind: each
 * listed type `Unknown`/`Pending`/"Waiting for controller" at the epoch. The API server drops a
 * client's `status` on create, so every new object of a seeded kind starts from exactly this.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Int64, StringEnum } from './schema.ts';

export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];

export const Condition = Type.Object({
  type: Type.String({
    maxLength: 316,
    pattern:
      '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
  }),
  status: StringEnum(CONDITION_STATUSES),
  observedGeneration: Type.Optional(Int64({ minimum: 0 })),
  lastTransitionTime: Type.String({ format: 'date-time' }),
  reason: Type.String({ minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
  message: Type.String({ maxLength: 32768 }),
});
export type Condition = Static<typeof Condition>;

export function Conditions() {
  return Type.Array(Condition, {
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
  });
}

/** The reason of a seeded condition, and of every condition no controller has judged yet. */
export const PENDING = 'Pending';
export const WAITING_FOR_CONTROLLER = 'Waiting for controller';
export const SEED_TRANSITION_TIME = '1970-01-01T00:00:00Z';

/** The seed of one condition type. */
export function seededCondition(type: string): Condition {
  return {
    type,
    status: 'Unknown',
    reason: PENDING,
    message: WAITING_FOR_CONTROLLER,
    lastTransitionTime: SEED_TRANSITION_TIME,
  };
}

/** The `status` default of a kind seeded with `types` (apis.md §0, "Seeded status"). */
export function seededStatus(types: readonly string[]): { conditions: Condition[] } {
  return { conditions: types.map(seededCondition) };
}
