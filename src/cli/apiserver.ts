/**
 * `netpresence apiserver`: the embedded Kubernetes API server alone — the root plane plus one
 * plane per `--plane`, a kubeconfig with a context per plane, until SIGINT or SIGTERM.
 */
import { Command, Option } from 'commander';
import { writeKubeconfig } from '../apiserver/auth/kubeconfig.ts';
import { ApiServer } from '../apiserver/server.ts';
import { parseListen, stopOnSignal } from './process-options.ts';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export interface ApiserverFlags {
  listen: string;
  plane: string[];
  dataDir?: string;
  kubeconfig: string;
  auditLog?: string;
}

export async function runApiserver(flags: ApiserverFlags): Promise<ApiServer> {
  const { host, port } = parseListen(flags.listen);
  const server = await ApiServer.start({ host, port, dataDir: flags.dataDir, auditLog: flags.auditLog });
  for (const name of flags.plane) server.addPlane(name);
  await writeKubeconfig(flags.kubeconfig, server.kubeconfig());
  return server;
}

export function apiserverCommand(): Command {
  return new Command('apiserver')
    .description('Serve the embedded Kubernetes API server alone')
    .option('--listen <host:port>', 'address to listen on', '127.0.0.1:6443')
    .option('--plane <name>', 'add a plane served at /planes/<name> (repeatable)', collect, [])
    .option('--data-dir <dir>', 'keep the CA and tokens here (memory only without it)')
    .option(
      '--audit-log <path>',
      'append an audit.k8s.io/v1 Event (level Metadata) per request here, one JSON line each',
    )
    .addOption(
      new Option('--kubeconfig <path>', 'write a kubeconfig here once listening').default(
        '.netpresence/kubeconfig',
      ),
    )
    .action(async (flags: ApiserverFlags) => {
      const server = await runApiserver(flags);
      stopOnSignal(server);
      console.log(
        `netpresence apiserver listening on ${server.url('root')}; kubeconfig written to ${flags.kubeconfig}`,
      );
    });
}
