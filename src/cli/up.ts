/**
 * `netpresence up`: the embedded fleet (src/fleet) until SIGINT or SIGTERM — every plane, every
 * controller, the propagation engine and the platform stand-ins in one process, with a
 * kubeconfig naming each plane, and the dashboard (src/dashboard) unless `--dashboard off`.
 *
 * Guarantees: once the fleet is up it prints a few lines to stdout — where it listens (the first
 * line starts with `netpresence fleet is up at `), where the kubeconfig is, where its controllers'
 * and API writes' Prometheus metrics are served (`metrics: `) and what to try next;
 * logs go to stderr. A config that does not parse exits 1 naming every problem. A signal stops
 * the fleet cleanly and exits 0.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Command, Option } from 'commander';
import { pino, type Logger } from 'pino';
import { startDashboard, type Dashboard } from '../dashboard/dashboard.ts';
import { defaultFleetConfig, parseFleetConfig, type FleetConfig } from '../fleet/config.ts';
import { startFleet, type Fleet } from '../fleet/fleet.ts';
import { systemClock } from '../runtime/clock.ts';
import { rootLogger } from '../runtime/logging.ts';
import { DEFAULT_DASHBOARD_LISTEN, parseListen } from './dashboard.ts';
import { logLevelOption, stopOnSignal, type LogLevel } from './process-options.ts';

export const READY_LINE_PREFIX = 'netpresence fleet is up at ';

export interface UpFlags {
  config?: string;
  dataDir?: string;
  port: string;
  host: string;
  kubeconfig: string;
  logLevel: LogLevel;
  /** `HOST:PORT`, or `off`. */
  dashboard: string;
  auditLog?: string;
  standInsOnly?: boolean;
}

export const DASHBOARD_LINE_PREFIX = 'dashboard: ';
/** The line naming every Prometheus `/metrics` URL of the fleet, separated by spaces. */
export const METRICS_LINE_PREFIX = 'metrics: ';

export async function loadConfig(path: string | undefined): Promise<FleetConfig> {
  if (!path) return defaultFleetConfig();
  return parseFleetConfig(await readFile(path, 'utf8'), path);
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be an integer from 0 to 65535, got "${value}"`);
  return port;
}

/** The lines printed once the fleet is up. */
export function readyLines(
  fleet: Fleet,
  config: FleetConfig,
  startedMs: number,
  dashboardUrl?: string,
): string[] {
  const firstCell = config.cells.find((cell) => cell.location) ?? config.cells[0];
  return [
    `${READY_LINE_PREFIX}${fleet.url} (ready in ${(startedMs / 1000).toFixed(1)} s)`,
    `kubeconfig: ${fleet.kubeconfigPath} — contexts platform, hub, project-<name>, <cell>, and -as-consumer / -as-cell`,
    ...(dashboardUrl ? [`${DASHBOARD_LINE_PREFIX}${dashboardUrl}`] : []),
    `${METRICS_LINE_PREFIX}${[...fleet.metricsUrls, fleet.fleetMetricsUrl].join(' ')}`,
    'next:',
    `  export KUBECONFIG=${fleet.kubeconfigPath}`,
    '  kubectl --context hub get clusters',
    ...(firstCell ? [`  kubectl --context ${firstCell.name} get servinglocations`] : []),
    '  (the README quick start applies examples/fleet to make a binding Ready and give a claim an interface)',
  ];
}

/**
 * The dashboard beside the fleet, on `listen`; when the default address is taken (another fleet
 * on this machine), on a free port of the same host instead.
 */
async function dashboardBeside(fleet: Fleet, listen: string, log: Logger): Promise<Dashboard> {
  const address = parseListen(listen, '--dashboard');
  // The dashboard reads as the fleet's read-only identity, from a kubeconfig of its own.
  const kubeconfigPath = join(dirname(fleet.kubeconfigPath), 'dashboard-kubeconfig');
  await writeFile(kubeconfigPath, fleet.readOnlyKubeconfig(), { mode: 0o600 });
  const start = (port: number) =>
    startDashboard({
      kubeconfigPath,
      host: address.host,
      port,
      metricsUrls: fleet.metricsUrls,
      clock: systemClock,
      log,
    });
  try {
    return await start(address.port);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || listen !== DEFAULT_DASHBOARD_LISTEN)
      throw err;
    log.warn({ listen }, 'the default dashboard address is taken; serving the dashboard on a free port');
    return start(0);
  }
}

/** Starts the fleet (and its dashboard) and prints the ready lines; `beforeReady` runs between the two. */
export async function runUp(flags: UpFlags, beforeReady: (fleet: Fleet) => void = () => {}): Promise<Fleet> {
  const started = performance.now();
  // Apart from the fleet's processes, no read-only identity is granted anything to show.
  if (flags.standInsOnly) flags = { ...flags, dashboard: 'off' };
  if (flags.dashboard !== 'off') parseListen(flags.dashboard, '--dashboard');
  const config = await loadConfig(flags.config);
  const log = rootLogger({ level: flags.logLevel, name: 'netpresence-up', destination: pino.destination(2) });
  const fleet = await startFleet({
    config,
    kubeconfigPath: flags.kubeconfig,
    dataDir: flags.dataDir,
    host: flags.host,
    port: parsePort(flags.port),
    log,
    auditLog: flags.auditLog,
    standInsOnly: flags.standInsOnly,
  });
  let dashboard: Dashboard | undefined;
  try {
    if (flags.dashboard !== 'off') dashboard = await dashboardBeside(fleet, flags.dashboard, log);
  } catch (err) {
    await fleet.stop();
    throw err;
  }
  const running = dashboard ? withDashboard(fleet, dashboard) : fleet;
  beforeReady(running);
  for (const line of readyLines(fleet, config, performance.now() - started, dashboard?.url))
    console.log(line);
  return running;
}

/** The fleet, stopping its dashboard first. */
function withDashboard(fleet: Fleet, dashboard: Dashboard): Fleet {
  return {
    ...fleet,
    async stop() {
      await dashboard.stop();
      await fleet.stop();
    },
  };
}

export function upCommand(): Command {
  return new Command('up')
    .description(
      'Run the embedded fleet: every plane, controller and the propagation engine, with a kubeconfig per plane',
    )
    .option('--config <file>', 'fleet config (YAML; see the README); default: the built-in default fleet')
    .option(
      '--data-dir <dir>',
      'keep every plane here; restarting on it resumes the same fleet (memory only without it)',
    )
    .option('--port <n>', 'port to listen on (0 picks a free one)', '6443')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .addOption(
      new Option('--kubeconfig <path>', 'write the kubeconfig here').default('.netpresence/kubeconfig'),
    )
    .option(
      '--dashboard <address>',
      'serve the dashboard at HOST:PORT (loopback only), or "off"',
      DEFAULT_DASHBOARD_LISTEN,
    )
    .option(
      '--audit-log <path>',
      'append an audit.k8s.io/v1 Event (level Metadata) per request here, one JSON line each',
    )
    .option(
      '--stand-ins-only',
      'serve the planes and the platform stand-ins only: no manager, propagator, cell controllers, data plane or dashboard, and no RBAC for them (run them apart under config/rbac)',
    )
    .addOption(logLevelOption('warn', 'lowest log level written to stderr'))
    .action(async (flags: UpFlags) => {
      // The handlers are in place before the ready lines: whoever reads them may signal at once.
      await runUp(flags, stopOnSignal);
    });
}
