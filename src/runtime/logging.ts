/**
 * Structured logs (pino, one JSON object per line). The process has one root logger; each
 * controller logs through a child that binds its name, and each reconcile through a child that
 * also binds the key and the plane the key names.
 *
 * Guarantees: a line written through `controllerLogger` carries `controller`, and `plane` and
 * `key` whenever they are given, as top-level fields (never folded into the message), so logs
 * can be filtered by any of them. Fields that are not given are omitted, not written as null.
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
