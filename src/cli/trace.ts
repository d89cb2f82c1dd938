/**
 * `netpresence trace binding <hub-namespace>/<name>` and
 * `netpresence trace claim <cell>/<namespace>/<name>`: one line per hop a network passes through
 * (binding → project context → Subnet → hub copies → cell copies → interface), then the first hop
 * that is missing or refusing and what to do about it. Reads the planes through the kubeconfig
 * `netpresence up` writes.
 *
 * Exit codes: 0 when every hop is present and Ready, 1 otherwise, 2 on a malformed reference or an
 * unreadable kubeconfig.
 */
import { Command } from 'commander';
import { traceBinding } from '../trace/binding.ts';
import { traceClaim } from '../trace/trace-claim.ts';
import { DEFAULT_KUBECONFIG } from '../trace/contexts.ts';
import type { Hop } from '../trace/hop.ts';
import { KubeconfigPlaneReader } from '../trace/kubeconfig-reader.ts';
import type { PlaneReader } from '../trace/reader.ts';
import { parseBindingRef, parseClaimRef } from '../trace/refs.ts';
import { renderTrace } from '../trace/render.ts';
import { exitCodeOf } from '../trace/verdict.ts';

const USAGE_ERROR = 2;

export const traceHelp = `
Each line is one hop: ok, MISSING, REFUSING, WAITING, UNREADABLE, or - (not checked because a
hop above it failed). The last line is the verdict: the first hop to fix, and how. Conditions
the data plane owns (a Subnet's or an interface's Programmed, Prepared) are shown but do not
fail a hop.

Exit status: 0 when every hop is present and Ready, 1 otherwise, 2 when the reference or the
kubeconfig cannot be used.

Kubeconfig contexts read: platform, hub, project-<project> (else the platform's Milo project
path), and one per cell named after its hub Cluster.`;

interface TraceFlags {
  kubeconfig: string;
}

async function run(flags: TraceFlags, trace: (reader: PlaneReader) => Promise<Hop[]>): Promise<never> {
  let reader: PlaneReader;
  try {
    reader = new KubeconfigPlaneReader(flags.kubeconfig);
  } catch (err) {
    console.error(`netpresence trace: ${(err as Error).message}`);
    process.exit(USAGE_ERROR);
  }
  const hops = await trace(reader);
  console.log(renderTrace(hops).join('\n'));
  process.exit(exitCodeOf(hops));
}

function parsed<T>(parse: (given: string) => T, given: string): T {
  try {
    return parse(given);
  } catch (err) {
    console.error(`netpresence trace: ${(err as Error).message}`);
    process.exit(USAGE_ERROR);
  }
}

export function traceCommand(): Command {
  const kubeconfigOption = [
    '--kubeconfig <path>',
    'the kubeconfig `netpresence up` wrote',
    DEFAULT_KUBECONFIG,
  ] as const;
  return new Command('trace')
    .description(
      'Follow a network hop by hop to a binding or a claim, and name the first hop that is missing or refusing',
    )
    .addHelpText('after', traceHelp)
    .addCommand(
      new Command('binding')
        .description('Trace a NetworkBinding on the hub down to every cell serving its location')
        .argument('<hub-namespace/name>', 'the binding, as <hub-namespace>/<name>')
        .option(...kubeconfigOption)
        .addHelpText('after', traceHelp)
        .action((given: string, flags: TraceFlags) => {
          const ref = parsed(parseBindingRef, given);
          return run(flags, (reader) => traceBinding(reader, ref));
        }),
    )
    .addCommand(
      new Command('claim')
        .description('Trace a NetworkInterfaceClaim in a cell up to its binding and down to its interface')
        .argument('<cell/namespace/name>', 'the claim, as <cell>/<namespace>/<name>')
        .option(...kubeconfigOption)
        .addHelpText('after', traceHelp)
        .action((given: string, flags: TraceFlags) => {
          const ref = parsed(parseClaimRef, given);
          return run(flags, (reader) => traceClaim(reader, ref));
        }),
    );
}
