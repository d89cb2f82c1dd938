/**
 * `netpresence dashboard --kubeconfig F [--listen 127.0.0.1:8080] [--token-file F] [--metrics-url U]…`: the live,
 * read-only web view of presence, over the same kubeconfig contexts as `netpresence trace`.
 *
 * Guarantees: prints `netpresence dashboard at <url>` once it listens; a malformed `--listen`,
 * an unreadable or empty token file, or a non-loopback address without `--token-file` exits 2
 * naming the flag; a signal stops it cleanly.
 */
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { startDashboard } from '../dashboard/dashboard.ts';
import { serverMessages } from '../dashboard/server.ts';
import { systemClock } from '../runtime/clock.ts';
import { rootLogger } from '../runtime/logging.ts';
import { DEFAULT_KUBECONFIG } from '../trace/contexts.ts';
import { logLevelOption, stopOnSignal, type LogLevel } from './process-options.ts';

export const DEFAULT_DASHBOARD_LISTEN = '127.0.0.1:8080';
export const DASHBOARD_LINE_PREFIX = 'netpresence dashboard at ';

export interface ListenAddress {
  host: string;
  port: number;
}

/** `HOST:PORT` (`[::1]:8080` for IPv6). */
export function parseListen(value: string, flag = '--listen'): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535)
    throw new Error(`${flag} must be HOST:PORT (for example ${DEFAULT_DASHBOARD_LISTEN}), got "${value}"`);
  return { host: match[1] ?? match[2], port };
}

export async function readToken(path: string): Promise<string> {
  const token = (await readFile(path, 'utf8')).trim();
  if (!token) throw new Error(serverMessages.emptyToken(path));
  return token;
}

/** Collects a repeated `--metrics-url`; anything but an http(s) URL is refused, naming the flag. */
export function collectUrl(value: string, previous: string[]): string[] {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol))
    throw new InvalidArgumentError(`--metrics-url must be an http(s) URL, got "${value}"`);
  return [...previous, value];
}

interface DashboardFlags {
  kubeconfig: string;
  listen: string;
  tokenFile?: string;
  metricsUrl: string[];
  logLevel: LogLevel;
}

export function dashboardCommand(): Command {
  return new Command('dashboard')
    .description('Serve a live, read-only web view of where every network is present, and why not')
    .option(
      '--kubeconfig <path>',
      'the kubeconfig netpresence up wrote (contexts platform, hub, project-<p>, cells)',
      DEFAULT_KUBECONFIG,
    )
    .option('--listen <host:port>', 'where to serve the page', DEFAULT_DASHBOARD_LISTEN)
    .option('--token-file <path>', 'a file holding the token the page asks for (required off loopback)')
    .option(
      '--metrics-url <url>',
      "a process's Prometheus /metrics URL to draw the throughput charts from (repeatable)",
      collectUrl,
      [],
    )
    .addOption(logLevelOption('warn', 'lowest log level written to stderr'))
    .action(async (flags: DashboardFlags) => {
      let listen: ListenAddress;
      let token: string | undefined;
      try {
        listen = parseListen(flags.listen);
        token = flags.tokenFile ? await readToken(flags.tokenFile) : undefined;
        const log = rootLogger({
          level: flags.logLevel,
          name: 'netpresence-dashboard',
          destination: pino.destination(2),
        });
        const dashboard = await startDashboard({
          kubeconfigPath: flags.kubeconfig,
          ...listen,
          token,
          metricsUrls: flags.metricsUrl,
          clock: systemClock,
          log,
        });
        console.log(`${DASHBOARD_LINE_PREFIX}${dashboard.url}`);
        stopOnSignal(dashboard);
      } catch (err) {
        console.error(`netpresence dashboard: ${(err as Error).message}`);
        process.exit(2);
      }
    });
}
