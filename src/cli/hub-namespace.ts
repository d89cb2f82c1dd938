/**
 * `netpresence hub-namespace <project>[/<namespace>]`: prints the hub namespace (`ns-<uid>`) of a
 * project namespace (default `default`), read from the project's control plane through the
 * kubeconfig `netpresence up` writes.
 *
 * Exit codes: 0 with the name on stdout; 1 with an error naming the project and namespace.
 */
import { Command } from 'commander';
import { DEFAULT_KUBECONFIG } from '../trace/contexts.ts';
import { resolveHubNamespace } from '../trace/hub-namespace.ts';
import { KubeconfigPlaneReader } from '../trace/kubeconfig-reader.ts';
import { parseProjectNamespaceRef } from '../trace/refs.ts';

export function hubNamespaceCommand(): Command {
  return new Command('hub-namespace')
    .description('Print the hub namespace (ns-<uid>) of a project namespace')
    .argument('<project[/namespace]>', 'the project, and its namespace (default: default)')
    .option('--kubeconfig <path>', 'the kubeconfig `netpresence up` wrote', DEFAULT_KUBECONFIG)
    .action(async (given: string, flags: { kubeconfig: string }) => {
      try {
        const ref = parseProjectNamespaceRef(given);
        console.log(await resolveHubNamespace(new KubeconfigPlaneReader(flags.kubeconfig), ref));
        process.exit(0);
      } catch (err) {
        console.error(`netpresence hub-namespace: ${(err as Error).message}`);
        process.exit(1);
      }
    });
}
