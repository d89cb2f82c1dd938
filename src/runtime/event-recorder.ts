/**
 * Recording events.k8s.io/v1 Events about objects (apis.md §7.5), as client-go's events
 * recorder writes them: one Event per occurrence, in the namespace of the object it regards
 * (`default` for a cluster-scoped object), named `<object>.<unique suffix>`.
 *
 * Guarantees: an Event carries `regarding` (apiVersion, kind, name, namespace, uid,
 * resourceVersion of the object as read), `reason`, `action`, `type`, `note`, `eventTime`
 * (MicroTime), `reportingController` and `reportingInstance`. Recording never throws: a failed
 * write is logged, because an event is a report about work, not part of it.
 * Caveat: no aggregation into series; callers decide how often an occurrence is worth an Event.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { KubeObject, ResourceClient } from '../client/types.ts';
import type { Clock } from './clock.ts';

export type EventType = 'Normal' | 'Warning';

export interface RecordedEvent {
  type: EventType;
  reason: string;
  action: string;
  note: string;
}

export interface EventRecorder {
  record(regarding: KubeObject, event: RecordedEvent): Promise<void>;
}

/** The reporting controller of every netpresence Event: `netpresence.datumapis.com/<controller>`. */
export function reportingController(controller: string): string {
  return `netpresence.datumapis.com/${controller}`;
}

/** Kubernetes MicroTime: RFC 3339 with six fractional digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

export function eventRecorder(options: {
  client: ResourceClient;
  controller: string;
  instance: string;
  clock: Clock;
  log: Logger;
}): EventRecorder {
  return {
    async record(regarding, event) {
      const { name, namespace, uid, resourceVersion } = regarding.metadata;
      const body: KubeObject = {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: `${name}.${randomBytes(8).toString('hex')}`, namespace: namespace ?? 'default' },
        eventTime: microTime(options.clock.now()),
        reportingController: reportingController(options.controller),
        reportingInstance: options.instance,
        action: event.action,
        reason: event.reason,
        type: event.type,
        note: event.note,
        regarding: {
          apiVersion: regarding.apiVersion,
          kind: regarding.kind,
          name,
          ...(namespace && { namespace }),
          uid,
          resourceVersion,
        },
      };
      try {
        await options.client.create(body);
      } catch (err) {
        options.log.warn({ err, reason: event.reason, regarding: name }, 'could not record an event');
      }
    },
  };
}
