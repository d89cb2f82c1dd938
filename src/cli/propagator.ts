/**
 * `netpresence propagator`: the embedded propagation engine for a hub that runs no Karmada
 * (`--hub-kubeconfig`), reaching members through their `Cluster` objects and Secrets, under the
 * Lease `netpresence-propagator` in `karmada-system`, until SIGINT or SIGTERM.
 */
import { Command } from 'commander';
import { loadKubeConfig } from '../client/kubeconfig.ts';
import { startPropagator, type Propagator } from '../processes/propagator.ts';
import {
  processSettings,
  serveUntilSignalled,
  withProcessOptions,
  type ProcessFlags,
} from './process-options.ts';

export interface PropagatorFlags extends ProcessFlags {
  hubKubeconfig: string;
  hubContext?: string;
}

export async function runPropagator(flags: PropagatorFlags): Promise<Propagator> {
  return startPropagator({
    hub: loadKubeConfig(flags.hubKubeconfig, flags.hubContext),
    ...processSettings(flags, 'propagator'),
  });
}

export function propagatorCommand(): Command {
  const command = new Command('propagator')
    .description(
      'Run the embedded propagation engine (Karmada policy semantics) against a hub that runs no Karmada',
    )
    .requiredOption(
      '--hub-kubeconfig <path>',
      'kubeconfig of the hub holding policies, templates and Clusters',
    )
    .option('--hub-context <name>', 'context to use in the hub kubeconfig (default: its current context)');
  return withProcessOptions(command, { metrics: 8090, health: 8091 }).action(async (flags: PropagatorFlags) =>
    serveUntilSignalled('propagator', await runPropagator(flags)),
  );
}
