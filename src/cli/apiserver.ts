/**
 * `netpresence apiserver`: the embedded Kubernetes API server alone — the root plane plus one
 * plane per `--plane`, a kubeconfig with a context per plane, until SIGINT or SIGTERM.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { pino } from 'pino';
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
  maxObjectBytes?: number;
  historyBytes?: number;
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

export async function runApiserver(flags: ApiserverFlags): Promise<ApiServer> {
  const { host, port } = parseListen(flags.listen);
  // Logs go to stderr: stdout carries only the line saying where the server listens.
  const log = pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
  const server = await ApiServer.start({
    host,
    port,
    dataDir: flags.dataDir,
    auditLog: flags.auditLog,
    log,
    plane: { maxObjectBytes: flags.maxObjectBytes, historyBytes: flags.historyBytes },
  });
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
    .option(
      '--max-object-bytes <n>',
      'largest encoded object a write may store (default 1.5 MiB)',
      positiveInteger,
    )
    .option(
      '--history-bytes <n>',
      'bytes of history each plane keeps for watches to resume from (default 64 MiB)',
      positiveInteger,
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
