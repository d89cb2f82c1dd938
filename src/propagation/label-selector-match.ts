/**
 * The standard label selector (propagation.md §2.1): `matchLabels` and `matchExpressions`
 * ANDed, operators `In`, `NotIn`, `Exists`, `DoesNotExist`.
 *
 * Guarantees: `NotIn` matches an object that lacks the key; the empty selector `{}` matches
 * everything; a selector Kubernetes would reject (an unknown operator, `In`/`NotIn` without
 * values, `Exists`/`DoesNotExist` with values, an empty key) matches nothing.
 */
import type { LabelSelector } from '../apis/common/label-selector.ts';

export function matchesLabelSelector(
  selector: LabelSelector,
  labels: Record<string, string> | undefined,
): boolean {
  const held = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (key === '' || held[key] !== value) return false;
  }
  for (const requirement of selector.matchExpressions ?? []) {
    const values = requirement.values ?? [];
    if (requirement.key === '') return false;
    const present = requirement.key in held;
    switch (requirement.operator) {
      case 'In':
        if (values.length === 0 || !present || !values.includes(held[requirement.key])) return false;
        break;
      case 'NotIn':
        if (values.length === 0 || (present && values.includes(held[requirement.key]))) return false;
        break;
      case 'Exists':
        if (values.length > 0 || !present) return false;
        break;
      case 'DoesNotExist':
        if (values.length > 0 || present) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
