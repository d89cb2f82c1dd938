/**
 * `netpresence manager`: the hub and project controllers against real control planes — the hub
 * (`--hub-kubeconfig`) and Milo's platform (`--platform-kubeconfig`), whose Projects name the
 * project planes — until SIGINT or SIGTERM.
 */
import { Command } from 'commander';
import { loadKubeConfig } from '../client/kubeconfig.ts';
import { startManager, type Manager } from '../processes/manager.ts';
import {
  processSettings,
  serveUntilSignalled,
  withProcessOptions,
  type ProcessFlags,
} from './process-options.ts';

export interface ManagerFlags extends ProcessFlags {
  hubKubeconfig: string;
  hubContext?: string;
  platformKubeconfig: string;
  platformContext?: string;
}

export async function runManager(flags: ManagerFlags): Promise<Manager> {
  return startManager({
    hub: loadKubeConfig(flags.hubKubeconfig, flags.hubContext),
    platform: loadKubeConfig(flags.platformKubeconfig, flags.platformContext),
    ...processSettings(flags, 'manager'),
  });
}

export function managerCommand(): Command {
  const command = new Command('manager')
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
    );
  return withProcessOptions(command, { metrics: 8080, health: 8081 }).action(async (flags: ManagerFlags) =>
    serveUntilSignalled('manager', await runManager(flags)),
  );
}
