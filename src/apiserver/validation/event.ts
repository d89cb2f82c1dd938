/**
 * Event content (core/v1 and events.k8s.io/v1, one object seen through two versions), as
 * Kubernetes decodes and validates it (ValidateEventCreate / ValidateEventUpdate):
 * - wrong JSON types are 400 in the Go decoder's words, for the request's version;
 * - every Event: `involvedObject.namespace` must match the Event's namespace; an Event with
 *   `eventTime` needs `reportingController` (a qualified name), `reportingInstance`, `action` and
 *   `reason` within their lengths;
 * - through events.k8s.io/v1 also: `eventTime` required, `type` Normal or Warning, a `series` of
 *   at least 2 with its `lastObservedTime`, the deprecated core fields unset on create, and on
 *   update the fields that describe what happened immutable.
 * Field paths are the core ones (`involvedObject.namespace`, `message`), as Kubernetes words them
 * whichever version was written.
 */
import { invalidValue, required, type FieldError } from '../errors.ts';
import { deepEqual, isPlainObject, type KubeObject } from '../objects.ts';
import { eventsToCore } from '../resources/event-conversion.ts';
import { labelKeyErrors } from '../selectors/label-syntax.ts';
import { isDnsSubdomain } from './names.ts';
import { readInt32, readObject, readString, readTime, type GoField } from './go-decoding.ts';

const STRING_FIELDS: Record<string, string[]> = {
  v1: ['reason', 'message', 'type', 'action', 'reportingComponent', 'reportingInstance'],
  events: ['reportingController', 'reportingInstance', 'action', 'reason', 'note', 'type'],
};
const REFERENCE_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

/** The types of the request's own form (core `v1` or `events`), as the Go decoder checks them. */
function checkTypes(object: KubeObject, form: 'v1' | 'events'): void {
  const at = (struct: string, path: string): GoField => ({ kind: 'Event', version: 'v1', struct, path });
  for (const name of STRING_FIELDS[form]) readString(at('Event', name), object[name]);
  const references = form === 'v1' ? ['involvedObject', 'related'] : ['regarding', 'related'];
  for (const name of references) {
    const reference = readObject(at('Event', name), object[name], 'v1.ObjectReference');
    for (const field of REFERENCE_FIELDS)
      readString(at('ObjectReference', `${name}.${field}`), reference?.[field]);
  }
  const source = form === 'v1' ? 'source' : 'deprecatedSource';
  const sourceObject = readObject(at('Event', source), object[source], 'v1.EventSource');
  for (const field of ['component', 'host'])
    readString(at('EventSource', `${source}.${field}`), sourceObject?.[field]);
  const [first, last, count] =
    form === 'v1'
      ? ['firstTimestamp', 'lastTimestamp', 'count']
      : ['deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount'];
  readTime(at('Event', first), object[first], false);
  readTime(at('Event', last), object[last], false);
  readInt32(at('Event', count), object[count]);
  readTime(at('Event', 'eventTime'), object.eventTime, true);
  const series = readObject(at('Event', 'series'), object.series, 'v1.EventSeries');
  readInt32(at('EventSeries', 'series.count'), series?.count);
  readTime(at('EventSeries', 'series.lastObservedTime'), series?.lastObservedTime, true);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function legacyErrors(event: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const namespace = event.metadata.namespace ?? '';
  const involved = (event.involvedObject ?? {}) as Record<string, unknown>;
  const involvedNamespace = text(involved.namespace);
  const mismatch = () =>
    invalidValue('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');
  if (!event.eventTime) {
    if (
      involvedNamespace === '' ? namespace !== '' && namespace !== 'default' : namespace !== involvedNamespace
    )
      errors.push(mismatch());
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system')
      errors.push(mismatch());
    const controller = text(event.reportingComponent);
    if (controller === '') errors.push(required('reportingController'));
    for (const message of labelKeyErrors(controller))
      errors.push(invalidValue('reportingController', controller, message));
    const limits: [string, number][] = [
      ['reportingInstance', 128],
      ['action', 128],
      ['reason', 128],
    ];
    for (const [field, limit] of limits) {
      const value = text(event[field]);
      if (value === '') errors.push(required(field));
      if (value.length > limit) errors.push(invalidValue(field, '', `can have at most ${limit} characters`));
    }
    if (text(event.message).length > 1024)
      errors.push(invalidValue('message', '', 'can have at most 1024 characters'));
  }
  if (!isDnsSubdomain(namespace)) {
    errors.push(
      invalidValue(
        'namespace',
        namespace,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
      ),
    );
  }
  return errors;
}

function seriesErrors(event: KubeObject): FieldError[] {
  const series = event.series as Record<string, unknown> | undefined;
  if (!series) return [];
  const errors: FieldError[] = [];
  if (typeof series.count !== 'number' || series.count < 2)
    errors.push(invalidValue('series.count', '', 'should be at least 2'));
  if (!series.lastObservedTime) errors.push(required('series.lastObservedTime'));
  return errors;
}

const IMMUTABLE = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
];

/** `old` is the stored object in the request's form, on an update. */
export function validateEvent(object: KubeObject, group: string, old?: KubeObject): FieldError[] {
  const strict = group === 'events.k8s.io';
  checkTypes(object, strict ? 'events' : 'v1');
  const event = strict ? eventsToCore(object) : object;
  const errors = legacyErrors(event);
  if (!strict) return errors;
  if (old) {
    const before = eventsToCore(old);
    if (!deepEqual(event.series, before.series)) errors.push(...seriesErrors(event));
    for (const field of IMMUTABLE) {
      if (!deepEqual(event[field] ?? null, before[field] ?? null))
        errors.push(invalidValue(field, event[field] ?? '', 'field is immutable'));
    }
    return errors;
  }
  errors.push(...seriesErrors(event));
  if (!event.eventTime) errors.push(required('eventTime'));
  if (event.type !== 'Normal' && event.type !== 'Warning')
    errors.push(invalidValue('type', '', `has invalid value: ${text(event.type)}`));
  for (const field of ['firstTimestamp', 'lastTimestamp', 'count', 'source']) {
    const value = event[field];
    const set = isPlainObject(value) ? Object.values(value).some((v) => v) : Boolean(value);
    if (set) errors.push(invalidValue(field, '', 'needs to be unset'));
  }
  return errors;
}
