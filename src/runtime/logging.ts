/**
 * Structured logs (pino, one JSON object per line). The process has one root logger; each
 * controller logs through a child that binds its name, and each reconcile through a child that
 * also binds the key and the plane the key names.
 *
 * Guarantees: a line written through `controllerLogger` carries `controller`, and `plane` and
 * `key` whenever they are given, as top-level fields (never folded into the message), so logs
 * can be filtered by any of them. Fields that are not given are omitted, not written as null.
 * `reconcileLogger` gives the same lines, and makes its child only when something is logged at an
 * enabled level (or anything but a level method is used): a reconcile that logs nothing, or only
 * below the level, builds no child (pino serialises a child's bindings when it is made).
 */
import { pino, type DestinationStream, type Level, type Logger } from 'pino';

export type { Logger };

export interface RootLoggerOptions {
  /** Lowest level written; `silent` writes nothing. Default `info`. */
  level?: Level | 'silent';
  /** Where lines go; default stdout. Tests pass a stream that collects them. */
  destination?: DestinationStream;
  /** The process's role, e.g. `hub-controller-manager`; written as `name`. */
  name?: string;
}

export function rootLogger(options: RootLoggerOptions = {}): Logger {
  const settings = { level: options.level ?? 'info', ...(options.name ? { name: options.name } : {}) };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

export interface ControllerLogFields {
  controller: string;
  plane?: string;
  key?: string;
}

export function controllerLogger(log: Logger, fields: ControllerLogFields): Logger {
  const bindings: Record<string, string> = { controller: fields.controller };
  if (fields.plane !== undefined) bindings.plane = fields.plane;
  if (fields.key !== undefined) bindings.key = fields.key;
  return log.child(bindings);
}

const LEVEL_METHODS = new Set<PropertyKey>(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const noop = (): void => {};

/** What a reconcile logger holds: the parent, the fields, and the child once made. */
interface LazyLogger {
  log: Logger;
  fields: ControllerLogFields;
  child?: Logger;
}

const LAZY = Symbol('reconcile logger state');

function made(target: Logger): Logger {
  const lazy = Reflect.get(target, LAZY) as LazyLogger;
  return (lazy.child ??= controllerLogger(lazy.log, lazy.fields));
}

/** One handler for every reconcile logger: no closures are made per reconcile. */
const LAZY_HANDLER: ProxyHandler<Logger> = {
  get(target, prop) {
    const lazy = Reflect.get(target, LAZY) as LazyLogger;
    if (lazy.child === undefined && LEVEL_METHODS.has(prop) && !lazy.log.isLevelEnabled(prop as Level))
      return noop;
    const child = made(target);
    const value: unknown = Reflect.get(child, prop, child);
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(child) : value;
  },
  set(target, prop, value) {
    return Reflect.set(made(target), prop, value);
  },
  has(target, prop) {
    return Reflect.has(made(target), prop);
  },
};

/**
 * `controllerLogger(log, fields)`, made on first use: a level method below `log`'s level is a
 * no-op and makes nothing; anything else makes the child (as it would have been made at that
 * moment) and is answered by it.
 */
export function reconcileLogger(log: Logger, fields: ControllerLogFields): Logger {
  const target = Object.create(null) as Logger;
  const lazy: LazyLogger = { log, fields };
  Reflect.set(target, LAZY, lazy);
  return new Proxy(target, LAZY_HANDLER);
}
