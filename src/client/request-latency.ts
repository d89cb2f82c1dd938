/**
 * The latency this thread's clients see, for whoever measures it: every request the transport
 * sends is reported once to the thread's observer (client-go's `rest_client_request_duration_seconds`
 * is one; runtime/metrics.ts), with its HTTP method, the server's host and the seconds from the
 * request being issued (its credentials applied included) to its response's headers.
 *
 * Guarantees: at most one observer per thread — a later `observeRequestLatency` replaces it,
 * `undefined` removes it; without one nothing is measured. Watches are not reported (they last as
 * long as their client keeps them); a request that fails before any response is not reported.
 * Caveat: process-wide state, as client-go's metrics registration is: what runs in one thread
 * shares one observer (the fleet's controller worker reports all its sets' requests together).
 */
export type RequestLatencyObserver = (method: string, host: string, seconds: number) => void;

let observer: RequestLatencyObserver | undefined;

/** Makes `next` this thread's observer; returns a function that removes it if it still is. */
export function observeRequestLatency(next: RequestLatencyObserver | undefined): () => void {
  observer = next;
  return () => {
    if (observer === next) observer = undefined;
  };
}

/** The start of a request: call the returned function once its response's headers arrive. */
export function requestStarted(method: string, host: string): () => void {
  const current = observer;
  if (!current) return noop;
  const started = performance.now();
  return () => current(method, host, (performance.now() - started) / 1000);
}

const noop = () => undefined;
