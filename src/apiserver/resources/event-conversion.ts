/**
 * Core `v1 Event` and `events.k8s.io/v1 Event` are one resource seen through two versions, as in
 * Kubernetes. Events are stored in the core form; the events.k8s.io type converts on the way in
 * and out, so `kubectl get events` shows what controllers record through events.k8s.io.
 */
import type { KubeObject } from '../objects.ts';

/** core field ↔ events.k8s.io field; the other fields share their names. */
const RENAMED: [core: string, events: string][] = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
];

function rename(object: KubeObject, pairs: [string, string][]): KubeObject {
  const out: KubeObject = { ...object };
  for (const [from, to] of pairs) {
    if (from in out) {
      out[to] = out[from];
      delete out[from];
    }
  }
  return out;
}

export function eventsToCore(object: KubeObject): KubeObject {
  return rename(
    object,
    RENAMED.map(([core, events]) => [events, core]),
  );
}

export function coreToEvents(object: KubeObject): KubeObject {
  return rename(object, RENAMED);
}
