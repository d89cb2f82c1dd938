/**
 * What every long-running netpresence command shares: the listen addresses of its metrics and
 * health endpoints, its leader-election identity and log level as flags, and running until
 * SIGINT or SIGTERM.
 *
 * Guarantees: every such command spells these flags and their help alike; a signal stops the
 * process's work (its `stop()` resolves) before the process exits 0; the same signal again while
 * stopping ends the process at once, as Node ends it by default.
 */
import { Command, Option } from 'commander';
import type { Logger } from 'pino';
import type { ListenAddress } from '../runtime/endpoints.ts';
import { rootLogger } from '../runtime/logging.ts';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ProcessFlags {
  metricsAddr: string;
  healthAddr: string;
  identity?: string;
  logLevel: LogLevel;
}

/** What the flags of `ProcessFlags` become for a process's start function. */
export interface ProcessSettings {
  metricsAddr: ListenAddress;
  healthAddr: ListenAddress;
  identity?: string;
  log: Logger;
}

/** `HOST:PORT` (an IPv6 host in brackets); an error names `flag`. */
export function parseListen(value: string, flag = '--listen'): ListenAddress {
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(value);
  if (!match) throw new Error(`${flag} must be HOST:PORT, got "${value}"`);
  const port = Number(match[2]);
  if (port > 65535) throw new Error(`${flag} port must be at most 65535, got ${port}`);
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

/** `--log-level`, defaulting to `level`. */
export function logLevelOption(level: LogLevel, description = 'lowest log level written'): Option {
  return new Option('--log-level <level>', description).choices(LOG_LEVELS).default(level);
}

/** Adds `--metrics-addr`, `--health-addr` (on 127.0.0.1 at these ports), `--identity`, `--log-level`. */
export function withProcessOptions(command: Command, ports: { metrics: number; health: number }): Command {
  return command
    .option(
      '--metrics-addr <host:port>',
      'serve Prometheus metrics at /metrics here',
      `127.0.0.1:${ports.metrics}`,
    )
    .option('--health-addr <host:port>', 'serve /healthz and /readyz here', `127.0.0.1:${ports.health}`)
    .option('--identity <name>', 'leader election identity (default: hostname and a random suffix)')
    .addOption(logLevelOption('info'));
}

/** The flags as settings; the logger is named `netpresence-<command>`. */
export function processSettings(flags: ProcessFlags, command: string): ProcessSettings {
  return {
    metricsAddr: parseListen(flags.metricsAddr, '--metrics-addr'),
    healthAddr: parseListen(flags.healthAddr, '--health-addr'),
    identity: flags.identity,
    log: rootLogger({ level: flags.logLevel, name: `netpresence-${command}` }),
  };
}

/**
 * Stops `running` and exits 0 on the first SIGINT or SIGTERM; a repeated signal is not caught.
 * Call it before printing that the process is up: a parent that reads that line may signal at
 * once, and a child preempted between its print and this call died of the default SIGINT action
 * (exit code null) instead of stopping cleanly.
 */
export function stopOnSignal(running: { stop(): Promise<void> }): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void running.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** Prints where a started process serves its endpoints, then runs it until signalled. */
export function serveUntilSignalled(
  command: string,
  running: { stop(): Promise<void>; metricsUrl?: string; healthUrl?: string },
): void {
  const served = [
    running.metricsUrl && `metrics on ${running.metricsUrl}/metrics`,
    running.healthUrl && `health on ${running.healthUrl}/healthz`,
  ].filter(Boolean);
  stopOnSignal(running);
  console.log(`netpresence ${command} running${served.length > 0 ? `; ${served.join(', ')}` : ''}`);
}
