/**
 * `netpresence manager`: the hub and project controllers against real control planes — the hub
 * (`--hub-kubeconfig`) and Milo's platform (`--platform-kubeconfig`), whose Projects name the
 * project planes — until SIGINT or SIGTERM.
 */
import { Command, Option } from 'commander';
import { loadKubeConfig } from '../client/kubeconfig.ts';
import { startManager, type Manager } from '../controllers/manager.ts';
import { rootLogger } from '../runtime/logging.ts';
import { parseListen } from './apiserver.ts';

export interface ManagerFlags {
  hubKubeconfig: string;
  hubContext?: string;
  platformKubeconfig: string;
  platformContext?: string;
  metricsAddr: string;
  healthAddr: string;
  identity?: string;
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent';
}

export async function runManager(flags: ManagerFlags): Promise<Manager> {
  return startManager({
    hub: loadKubeConfig(flags.hubKubeconfig, flags.hubContext),
    platform: loadKubeConfig(flags.platformKubeconfig, flags.platformContext),
    metricsAddr: parseListen(flags.metricsAddr),
    healthAddr: parseListen(flags.healthAddr),
    identity: flags.identity,
    log: rootLogger({ level: flags.logLevel, name: 'netpresence-manager' }),
  });
}

export function managerCommand(): Command {
  return new Command('manager')
    .description(
      'Run the hub and project controllers (presence, replicator, location publisher, network, networkcontext)',
    )
    .requiredOption('--hub-kubeconfig <path>', 'kubeconfig of the federation hub (Karmada API server)')
    .option('--hub-context <name>', 'context to use in the hub kubeconfig (default: its current context)')
    .requiredOption(
      '--platform-kubeconfig <path>',
      "kubeconfig of Milo's platform; project planes are reached under it",
    )
    .option(
      '--platform-context <name>',
      'context to use in the platform kubeconfig (default: its current context)',
    )
    .option('--metrics-addr <host:port>', 'serve Prometheus metrics at /metrics here', '127.0.0.1:8080')
    .option('--health-addr <host:port>', 'serve /healthz and /readyz here', '127.0.0.1:8081')
    .option('--identity <name>', 'leader election identity (default: hostname and a random suffix)')
    .addOption(
      new Option('--log-level <level>', 'lowest log level written')
        .choices(['trace', 'debug', 'info', 'warn', 'error', 'silent'])
        .default('info'),
    )
    .action(async (flags: ManagerFlags) => {
      const manager = await runManager(flags);
      console.log(
        `netpresence manager running; metrics on ${manager.metricsUrl}/metrics, health on ${manager.healthUrl}/healthz`,
      );
      const stop = (): void => {
        void manager.stop().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
