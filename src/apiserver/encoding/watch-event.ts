/**
 * Watch event lines, encoded once for every watcher: a write watched by a hundred clients is
 * turned into its presented form and serialised to JSON once per (resource type, event type),
 * not once per watcher, and the object's JSON is the one its write's response sends
 * (presented-json.ts).
 *
 * Guarantees: the line is exactly `JSON.stringify({ type, object: presentedForm(type, stored) })`
 * followed by a newline, what each watcher would have encoded itself. Only the lines of the
 * last stored object asked for are kept: the revision log tells every watcher of an event one
 * after another, synchronously, so they all find the line there, and no line outlives the next
 * event (memory stays what the log holds).
 * Assumes: a stored object is never mutated (the revision log stores a new object per write).
 * Caveat: a watcher asking for Table output renders its own (its columns depend on the request).
 */
import type { KubeObject } from '../objects.ts';
import type { ResourceType } from '../resources/resource-type.ts';
import { presentedJson } from './presented-json.ts';

let lastStored: KubeObject | undefined;
let lastLines = new Map<ResourceType, Map<string, string>>();

/** The watch stream line of `stored` as `type` presents it, under `eventType`. */
export function watchEventLine(type: ResourceType, eventType: string, stored: KubeObject): string {
  if (stored !== lastStored) {
    lastStored = stored;
    lastLines = new Map<ResourceType, Map<string, string>>();
  }
  let byEvent = lastLines.get(type);
  if (!byEvent) lastLines.set(type, (byEvent = new Map<string, string>()));
  let line = byEvent.get(eventType);
  if (line === undefined) {
    // JSON.stringify of `{ type, object }` writes the object's own encoding in place.
    line = `{"type":${JSON.stringify(eventType)},"object":${presentedJson(type, stored)}}\n`;
    byEvent.set(eventType, line);
  }
  return line;
}
