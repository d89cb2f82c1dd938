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
  // Written line by line (a file naming thousands of planes renders in milliseconds, rewritten
  // as planes come and go); a scalar in YAML could be misread, so that string is quoted.
  const q = yamlScalar;
  const lines = ['apiVersion: v1', 'kind: Config', 'clusters:'];
  for (const { name, server } of contexts)
    lines.push(
      `- name: ${q(name)}`,
      '  cluster:',
      `    certificate-authority-data: ${caData}`,
      `    server: ${q(server)}`,
    );
  lines.push('users:');
  for (const { name, token } of contexts)
    lines.push(`- name: ${q(name)}`, '  user:', `    token: ${q(token)}`);
  lines.push('contexts:');
  for (const { name, namespace } of contexts) {
    lines.push(`- name: ${q(name)}`, '  context:', `    cluster: ${q(name)}`, `    user: ${q(name)}`);
    if (namespace !== undefined) lines.push(`    namespace: ${q(namespace)}`);
  }
  lines.push(`current-context: ${q(currentContext)}`);
  return `${lines.join('\n')}\n`;
}

const PLAIN_SCALAR = /^[a-z][a-z0-9._/:@-]*$/i;
const YAML_WORDS = /^(true|false|yes|no|on|off|y|n|null)$/i;

/** `text` as a YAML scalar: plain when it reads as that string, else JSON-quoted (valid YAML). */
function yamlScalar(text: string): string {
  return PLAIN_SCALAR.test(text) && !YAML_WORDS.test(text) && !text.includes(': ')
    ? text
    : JSON.stringify(text);
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
