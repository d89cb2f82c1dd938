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
  return (object) =>
    (namespace === undefined || object.metadata.namespace === namespace) &&
    matchesLabels(labels, object.metadata.labels) &&
    matchesFields(fields, objectFields(object, type.selectableFields));
}
