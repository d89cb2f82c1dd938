/**
 * `netpresence propagator`: the embedded propagation engine for a hub that runs no Karmada
 * (`--hub-kubeconfig`), reaching members through their `Cluster` objects and Secrets, under the
 * Lease `netpresence-propagator` in `karmada-system`, until SIGINT or SIGTERM.
 */
import { Command, Option } from 'commander';
import { loadKubeConfig } from '../client/kubeconfig.ts';
import { startPropagator, type Propagator } from '../propagation/propagator.ts';
import { rootLogger } from '../runtime/logging.ts';
import { parseListen } from './apiserver.ts';

export interface PropagatorFlags {
  hubKubeconfig: string;
  hubContext?: string;
  metricsAddr: string;
  healthAddr: string;
  identity?: string;
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent';
}

export async function runPropagator(flags: PropagatorFlags): Promise<Propagator> {
  return startPropagator({
    hub: loadKubeConfig(flags.hubKubeconfig, flags.hubContext),
    metricsAddr: parseListen(flags.metricsAddr),
    healthAddr: parseListen(flags.healthAddr),
    identity: flags.identity,
    log: rootLogger({ level: flags.logLevel, name: 'netpresence-propagator' }),
  });
}

export function propagatorCommand(): Command {
  return new Command('propagator')
    .description(
      'Run the embedded propagation engine (Karmada policy semantics) against a hub that runs no Karmada',
    )
    .requiredOption(
      '--hub-kubeconfig <path>',
      'kubeconfig of the hub holding policies, templates and Clusters',
    )
    .option('--hub-context <name>', 'context to use in the hub kubeconfig (default: its current context)')
    .option('--metrics-addr <host:port>', 'serve Prometheus metrics at /metrics here', '127.0.0.1:8090')
    .option('--health-addr <host:port>', 'serve /healthz and /readyz here', '127.0.0.1:8091')
    .option('--identity <name>', 'leader election identity (default: hostname and a random suffix)')
    .addOption(
      new Option('--log-level <level>', 'lowest log level written')
        .choices(['trace', 'debug', 'info', 'warn', 'error', 'silent'])
        .default('info'),
    )
    .action(async (flags: PropagatorFlags) => {
      const propagator = await runPropagator(flags);
      console.log(
        `netpresence propagator running; metrics on ${propagator.metricsUrl}/metrics, health on ${propagator.healthUrl}/healthz`,
      );
      const stop = (): void => {
        void propagator.stop().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
