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

interface Line {
  type: ResourceType;
  eventType: string;
  line: string;
}

let lastStored: KubeObject | undefined;
/** The lines of `lastStored` made so far: one, nearly always (a type and an event type per write). */
const lastLines: Line[] = [];

/** The watch stream line of `stored` as `type` presents it, under `eventType`. */
export function watchEventLine(type: ResourceType, eventType: string, stored: KubeObject): string {
  if (stored !== lastStored) {
    lastStored = stored;
    lastLines.length = 0;
  }
  for (const made of lastLines) if (made.type === type && made.eventType === eventType) return made.line;
  // JSON.stringify of `{ type, object }` writes the object's own encoding in place.
  const line = `{"type":${JSON.stringify(eventType)},"object":${presentedJson(type, stored)}}\n`;
  lastLines.push({ type, eventType, line });
  return line;
}
