/**
 * `netpresence cell`: the cell controllers (location identity, claim, interface, context hold;
 * with `--hub-kubeconfig` and `--cell-name`, the interface write-back) against one edge cluster (`--kubeconfig`), with IPAM reached per project under an IPAM base —
 * either a kubeconfig (`--ipam-kubeconfig`) or the platform's URL (`--ipam-url`), then with the
 * credentials and CA of `--kubeconfig`'s user and cluster — until SIGINT or SIGTERM.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { Command } from 'commander';
import { loadKubeConfig } from '../client/kubeconfig.ts';
import { startCell, type CellProcess } from '../processes/cell.ts';
import {
  processSettings,
  serveUntilSignalled,
  withProcessOptions,
  type ProcessFlags,
} from './process-options.ts';

export interface CellFlags extends ProcessFlags {
  kubeconfig: string;
  context?: string;
  hubKubeconfig?: string;
  hubContext?: string;
  ipamKubeconfig?: string;
  ipamContext?: string;
  ipamUrl?: string;
  location?: string;
  cellName?: string;
}

export const ipamBaseMissing = 'netpresence cell needs the IPAM base: give --ipam-kubeconfig or --ipam-url';
export const ipamBaseTwice = 'give either --ipam-kubeconfig or --ipam-url, not both';
export const cellNameMissing =
  '--hub-kubeconfig needs --cell-name: the name of this cell on the hub (its Cluster), which names the hub copies of its interfaces';

/** The cell's KubeConfig with its current cluster's server moved to `url`: same user, same CA. */
export function kubeConfigAt(cell: KubeConfig, url: string): KubeConfig {
  const current = cell.getCurrentCluster()!;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: cell
      .getClusters()
      .map((c) => (c.name === current.name ? { ...c, server: url.replace(/\/+$/, '') } : c)),
    users: cell.getUsers(),
    contexts: cell.getContexts(),
    currentContext: cell.getCurrentContext(),
  });
  return kubeConfig;
}

export async function runCell(flags: CellFlags): Promise<CellProcess> {
  if (flags.ipamKubeconfig && flags.ipamUrl) throw new Error(ipamBaseTwice);
  if (flags.hubKubeconfig && !flags.cellName) throw new Error(cellNameMissing);
  const cell = loadKubeConfig(flags.kubeconfig, flags.context);
  let ipam: KubeConfig;
  if (flags.ipamKubeconfig) ipam = loadKubeConfig(flags.ipamKubeconfig, flags.ipamContext);
  else if (flags.ipamUrl) ipam = kubeConfigAt(cell, flags.ipamUrl);
  else throw new Error(ipamBaseMissing);
  return startCell({
    cell,
    ipam,
    hub: flags.hubKubeconfig ? loadKubeConfig(flags.hubKubeconfig, flags.hubContext) : undefined,
    location: flags.location,
    cellName: flags.cellName,
    ...processSettings(flags, 'cell'),
  });
}

export function cellCommand(): Command {
  const command = new Command('cell')
    .description(
      'Run the cell controllers (location identity, claim, interface, context hold, interface write-back) for one cell',
    )
    .requiredOption('--kubeconfig <path>', 'kubeconfig of the cell (the edge cluster)')
    .option('--context <name>', 'context to use in the cell kubeconfig (default: its current context)')
    .option(
      '--hub-kubeconfig <path>',
      'kubeconfig of the federation hub (optional): with it, every interface is written back to the hub',
    )
    .option('--hub-context <name>', 'context to use in the hub kubeconfig')
    .option(
      '--ipam-kubeconfig <path>',
      "kubeconfig of the IPAM base (Milo's platform); project P's IPAM is at its Milo project path",
    )
    .option('--ipam-context <name>', 'context to use in the IPAM kubeconfig')
    .option(
      '--ipam-url <url>',
      "the IPAM base URL instead of --ipam-kubeconfig, reached with --kubeconfig's user credentials and CA",
    )
    .option('--location <name>', 'the location to serve when no single ServingLocation has been delivered')
    .option(
      '--cell-name <name>',
      "this cell's name (its Cluster on the hub): in the name and label of every IPClaim it makes, and the name of its interfaces' hub copies; required with --hub-kubeconfig (default: --kubeconfig's current cluster name)",
    );
  return withProcessOptions(command, { metrics: 8080, health: 8081 }).action(async (flags: CellFlags) =>
    serveUntilSignalled('cell', await runCell(flags)),
  );
}
