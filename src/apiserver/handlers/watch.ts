/**
 * WATCH of a collection, exactly as spec/kube-api.md §7 describes.
 *
 * Guarantees:
 * - headers are flushed at once; then one compact JSON event per line;
 * - `resourceVersion` unset or "0": a synthetic ADDED for every matching object, then every
 *   later change; `resourceVersion` n: every change after n, in order, none from before; a
 *   resume point older than the window: an ERROR event (410 Expired), then the stream ends;
 * - filters apply to events, and an object that stops (starts) matching a selector is reported
 *   as DELETED (ADDED) to this watcher;
 * - BOOKMARK events only when asked (`allowWatchBookmarks`), periodically and before a timeout;
 * - the stream ends cleanly after `timeoutSeconds` (default: a random 30–60 minutes), and the
 *   subscription is dropped when the response closes (`res.on('close')`, not the request's).
 */
import { badRequest, type ApiError, resourceVersionTooLarge } from '../errors.ts';
import { watchEventLine } from '../encoding/watch-event.ts';
import type { KubeObject } from '../objects.ts';
import { apiVersionOf, presentedForm } from '../resources/resource-type.ts';
import type { StoredEvent } from '../storage/revision-log.ts';
import type { ResourceRequest } from './context.ts';
import { requestFilter } from './filter.ts';
import { tableOf, wantsTable } from './render.ts';

export interface WatchSettings {
  bookmarkIntervalMs: number;
  /** Default watch duration bounds when the client gives no timeoutSeconds. */
  defaultTimeoutMs: [number, number];
  /** A watcher whose unread output exceeds this is disconnected (it will resume). */
  maxBufferedBytes: number;
}

export const DEFAULT_WATCH_SETTINGS: WatchSettings = {
  bookmarkIntervalMs: 60_000,
  defaultTimeoutMs: [30 * 60_000, 60 * 60_000],
  maxBufferedBytes: 64 * 1024 * 1024,
};

type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

function parseStart(value: string | null): number | undefined {
  if (value === null || value === '' || value === '0') return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`invalid resource version: ${value}`);
  return Number(value);
}

function timeoutMs(r: ResourceRequest, settings: WatchSettings): number {
  const seconds = r.query.get('timeoutSeconds');
  if (seconds !== null) {
    if (!/^\d+$/.test(seconds)) throw badRequest(`invalid timeoutSeconds: ${seconds}`);
    return Number(seconds) * 1000;
  }
  const [low, high] = settings.defaultTimeoutMs;
  return low + Math.random() * (high - low);
}

/** How an event looks to a watcher with a filter: selector transitions become ADDED/DELETED. */
function visibleType(event: StoredEvent, matches: (o: KubeObject) => boolean): WatchEventType | undefined {
  const now = event.type !== 'DELETED' && matches(event.object);
  const before = event.previous !== undefined && matches(event.previous);
  if (event.type === 'DELETED') return before ? 'DELETED' : undefined;
  if (now) return before ? 'MODIFIED' : 'ADDED';
  return before ? 'DELETED' : undefined;
}

export function handleWatch(r: ResourceRequest, settings: WatchSettings = DEFAULT_WATCH_SETTINGS): void {
  const start = parseStart(r.query.get('resourceVersion'));
  // Kubernetes' watch cache waits up to 3 s for a revision it has not seen, then refuses it;
  // a single-process server that has not reached it will not, so it refuses at once.
  if (start !== undefined && start > r.plane.log.revision)
    throw resourceVersionTooLarge(start, r.plane.log.revision);
  const filter = requestFilter(r.type, r.namespace, r.query);
  const duration = timeoutMs(r, settings);
  const bookmarks = r.query.get('allowWatchBookmarks') === 'true';
  // No closure below refers to `r`: a watch lasts minutes, and what `r` holds (the request, its
  // query) would stay with it (bench/README.md, session 24).
  const tableLine = wantsTable(r) ? tableLines(r) : undefined;
  const { res, plane, type, namespace } = r;

  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Transfer-Encoding': 'chunked',
    'Cache-Control': 'no-cache',
  });
  res.flushHeaders();

  let closed = false;
  const sendLine = (line: string): void => {
    if (closed || res.writableEnded || res.destroyed) return;
    res.write(line);
    if (res.writableLength > settings.maxBufferedBytes) res.destroy();
  };
  const send = (eventType: string, object: unknown): void =>
    sendLine(`${JSON.stringify({ type: eventType, object })}\n`);
  const sendObject = (eventType: WatchEventType, stored: KubeObject): void =>
    sendLine(tableLine ? tableLine(eventType, stored) : watchEventLine(type, eventType, stored));
  const listener = (event: StoredEvent): void => {
    const visible = visibleType(event, filter);
    if (visible) sendObject(visible, event.object);
  };

  let unsubscribe: () => void = () => undefined;
  try {
    if (start === undefined) {
      for (const stored of plane.log.list(type.storage, namespace))
        if (filter(stored)) sendObject('ADDED', stored);
      unsubscribe = plane.log.watch(type.storage, plane.log.revision, listener);
    } else {
      unsubscribe = plane.log.watch(type.storage, start, listener);
    }
  } catch (err) {
    send('ERROR', (err as ApiError).toStatus());
    res.end();
    return;
  }

  const bookmark = (): void =>
    send('BOOKMARK', {
      kind: type.kind,
      apiVersion: apiVersionOf(type),
      metadata: { resourceVersion: String(plane.log.revision) },
    });
  const bookmarkTimer = bookmarks ? setInterval(bookmark, settings.bookmarkIntervalMs) : undefined;
  const stop = (): void => {
    closed = true;
    unsubscribe();
    clearTimeout(endTimer);
    if (bookmarkTimer) clearInterval(bookmarkTimer);
  };
  const endTimer = setTimeout(() => {
    if (bookmarks) bookmark();
    stop();
    res.end();
  }, duration);
  res.on('close', stop);
}

/** The lines of a watch that asked for a Table: column definitions in the first one only. */
function tableLines(r: ResourceRequest): (eventType: WatchEventType, stored: KubeObject) => string {
  let columnsSent = false;
  return (eventType, stored) => {
    const object = presentedForm(r.type, stored);
    const table = tableOf(r, [object], object.metadata.resourceVersion ?? '', {
      omitColumnDefinitions: columnsSent,
    });
    columnsSent = true;
    return `${JSON.stringify({ type: eventType, object: table })}\n`;
  };
}
