/**
 * Kubeconfig: the file that lets kubectl and @kubernetes/client-node reach the planes of this API
 * server, one context per plane.
 *
 * Guarantees: every context gets a cluster and a user of its own name; the cluster trusts the
 * given CA through `certificate-authority-data` and the user presents its bearer token. Only
 * https servers are accepted, because kubectl never sends a token to an http one
 * (spec/kube-api.md §0, surprise 4). The file is written atomically with mode 0600, since it
 * holds tokens.
 * Caveat: writing replaces the whole file; contexts that other tools added to it are not merged.
 */
import { stringify } from 'yaml';
import { writeFileAtomic } from './atomic-file.ts';

export interface KubeconfigContext {
  name: string;
  server: string;
  token: string;
  namespace?: string;
}

export const duplicateContext = (name: string): string =>
  `kubeconfig context "${name}" is given twice: give each plane's context its own name`;

export const missingCurrentContext = (name: string): string =>
  `kubeconfig current-context "${name}" names none of the contexts: pick one of them`;

export const insecureServer = (name: string, server: string): string =>
  `kubeconfig context "${name}" has server "${server}": use an https:// URL, kubectl sends no token over http`;

export function renderKubeconfig(
  caCertPem: string,
  contexts: KubeconfigContext[],
  currentContext: string,
): string {
  checkContexts(contexts, currentContext);
  const caData = Buffer.from(caCertPem, 'utf8').toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: contexts.map((context) => ({
      name: context.name,
      cluster: { 'certificate-authority-data': caData, server: context.server },
    })),
    users: contexts.map((context) => ({ name: context.name, user: { token: context.token } })),
    contexts: contexts.map((context) => ({
      name: context.name,
      context: {
        cluster: context.name,
        user: context.name,
        ...(context.namespace === undefined ? {} : { namespace: context.namespace }),
      },
    })),
    'current-context': currentContext,
  };
  // No folding: the CA data is one long scalar and must stay one line.
  return stringify(config, { lineWidth: 0 });
}

function checkContexts(contexts: KubeconfigContext[], currentContext: string): void {
  const names = new Set<string>();
  for (const context of contexts) {
    if (names.has(context.name)) throw new Error(duplicateContext(context.name));
    if (!context.server.startsWith('https://')) throw new Error(insecureServer(context.name, context.server));
    names.add(context.name);
  }
  if (!names.has(currentContext)) throw new Error(missingCurrentContext(currentContext));
}

export async function writeKubeconfig(path: string, content: string): Promise<void> {
  await writeFileAtomic(path, content, 0o600);
}
