/**
 * Watch: one streaming watch request, its events delivered in the order the server sent them.
 *
 * Guarantees:
 * - the returned promise resolves once the server has answered — a server that registers the
 *   watcher before answering (kube-apiserver, the embedded one) then reports every later write —
 *   and never rejects: every outcome, a refused or failed connection included, goes to `done`,
 *   which is called exactly once;
 * - each line of the stream is one event, decoded by event-lines.ts (its object's repeated strings
 *   interned; an event another watch of this thread just received is the same object); ERROR
 *   events are delivered like any other (a too-old resourceVersion usually arrives as an ERROR
 *   event carrying a 410 Status, then a clean end);
 * - `done()` after a clean end of the stream or after `abort()`; `done(err)` with the typed
 *   StatusError of a non-200 answer (410 → GoneError), the network error of a broken
 *   connection, an error naming a line that is not JSON, or what `onEvent` threw — each of
 *   which also closes the connection.
 *
 * Written over the transport rather than client-node's `Watch`, which drops the Status body of a
 * refused watch, reports its own abort as an error and skips lines it cannot parse.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { decodeEventLine } from './event-lines.ts';
import { LineSplitter } from './line-splitter.ts';
import { errorOf, open, type PlaneResponse, type Query } from './transport.ts';
import type { KubeObject, WatchEvent, WatchEventType, WatchHandle } from './types.ts';

export type WatchListener<T extends KubeObject> = (...event: WatchEvent<T>) => void;

export const CONNECTION_LOST = 'the watch connection closed before the stream ended';

export async function openWatch<T extends KubeObject>(
  kubeConfig: KubeConfig,
  path: string,
  query: Query,
  onEvent: WatchListener<T>,
  done: (err?: Error) => void,
): Promise<WatchHandle> {
  let response: PlaneResponse | undefined;
  let finished = false;
  const finish = (err?: Error): void => {
    if (finished) return;
    finished = true;
    response?.destroy();
    done(err);
  };
  const handle: WatchHandle = { abort: () => finish() };

  try {
    response = await open(kubeConfig, {
      method: 'GET',
      path,
      query: { ...query, watch: true },
      longLived: true,
    });
  } catch (err) {
    finish(err as Error);
    return handle;
  }
  if (response.statusCode !== 200) {
    finish(await errorOf(response).catch((err: Error) => err));
    return handle;
  }

  const stream = response;
  const deliver = (line: string): void => {
    if (finished || line.trim() === '') return;
    let event: { type: WatchEventType; object: unknown };
    try {
      event = decodeEventLine(line) as { type: WatchEventType; object: unknown };
    } catch {
      return finish(new Error(`the watch stream sent a line that is not JSON: ${line.slice(0, 200)}`));
    }
    try {
      // The server sends objects of the kind watched, a Status on ERROR.
      onEvent(...([event.type, event.object] as WatchEvent<T>));
    } catch (err) {
      finish(err as Error);
    }
  };
  // Lines are delivered synchronously as data arrives, so all of them precede 'close'.
  const lines = new LineSplitter(deliver);
  stream.on('data', (chunk) => lines.push(chunk as Buffer | string));
  stream.on('end', () => lines.end());
  stream.on('error', (err) => finish(err as Error));
  stream.on('close', () => finish(stream.complete ? undefined : new Error(CONNECTION_LOST)));
  // TCP keepalive notices a peer that vanished without closing an otherwise quiet stream.
  stream.socket.setKeepAlive(true, 30_000);
  return handle;
}
