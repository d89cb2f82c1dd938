/**
 * A User-Agent per controller, for attributing API writes (bench/fleet's counts): requests made
 * while `asAgent(name, fn)` runs carry `User-Agent: netpresence/<name>`.
 *
 * Guarantees: off unless the process starts with NETPRESENCE_USER_AGENT_PER_CONTROLLER=1 — the
 * scope is an AsyncLocalStorage, which in Node 20 costs every promise of the process (a measured
 * 2–2.5× on promise-bound code), so a run that measures time must leave it off; when off,
 * `asAgent` only calls `fn` and `userAgent()` is undefined (no header is set).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const USER_AGENT_ENV = 'NETPRESENCE_USER_AGENT_PER_CONTROLLER';
const PREFIX = 'netpresence/';

const scope = process.env[USER_AGENT_ENV] === '1' ? new AsyncLocalStorage<string>() : undefined;

/** Runs `fn` with requests it makes named after `name`, when per-controller agents are on. */
export function asAgent<T>(name: string, fn: () => T): T {
  return scope ? scope.run(PREFIX + name, fn) : fn();
}

/** The User-Agent of a request made now, if any. */
export function userAgent(): string | undefined {
  return scope?.getStore();
}
