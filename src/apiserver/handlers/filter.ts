/**
 * Which objects a list or watch request selects: its namespace, label selector and field
 * selector (`metadata.name`, `metadata.namespace`, and the kind's selectable fields).
 */
import type { KubeObject } from '../objects.ts';
import type { ResourceType } from '../resources/resource-type.ts';
import { matchesFields, objectFields, parseFieldSelector } from '../selectors/field-selector.ts';
import { matchesLabels, parseLabelSelector } from '../selectors/label-requirements.ts';

export type ObjectFilter = (object: KubeObject) => boolean;

export function requestFilter(
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
): ObjectFilter {
  const labels = parseLabelSelector(query.get('labelSelector') ?? undefined);
  const supported = new Set([
    'metadata.name',
    'metadata.namespace',
    ...Object.keys(type.selectableFields ?? {}),
  ]);
  const fields = parseFieldSelector(query.get('fieldSelector') ?? undefined, supported);
  // Every watcher of a resource judges every event with this, twice (the object and its previous
  // version): a selector that asks nothing is not evaluated, and an object's fields are read only
  // for a field selector.
  const byLabels = labels.matchesNothing || labels.requirements.length > 0;
  const byFields = fields.requirements.length > 0;
  return (object) =>
    (namespace === undefined || object.metadata.namespace === namespace) &&
    (!byLabels || matchesLabels(labels, object.metadata.labels)) &&
    (!byFields || matchesFields(fields, objectFields(object, type.selectableFields)));
}
