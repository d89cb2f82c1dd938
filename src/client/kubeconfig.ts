/**
 * Kubeconfig loading for the command line: a file, and optionally the context to use in it.
 *
 * Guarantees: the returned KubeConfig's current context exists and names a cluster; otherwise
 * the error names the file, the context and what the file does offer.
 */
import { KubeConfig } from '@kubernetes/client-node';

export const unreadableKubeconfig = (path: string, cause: string): string =>
  `cannot read kubeconfig ${path}: ${cause}`;
export const noCurrentContext = (path: string, known: string[]): string =>
  `kubeconfig ${path} sets no current-context; choose one of: ${known.join(', ') || 'none (the file has no contexts)'}`;
export const missingContext = (path: string, context: string, known: string[]): string =>
  `kubeconfig ${path} has no context "${context}"; it has: ${known.join(', ') || 'none'}`;
export const contextWithoutCluster = (path: string, context: string): string =>
  `kubeconfig ${path}: context "${context}" names no cluster defined in the file`;

export function loadKubeConfig(path: string, context?: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromFile(path);
  } catch (err) {
    throw new Error(unreadableKubeconfig(path, (err as Error).message), { cause: err });
  }
  const known = kubeConfig.getContexts().map((c) => c.name);
  const chosen = context ?? kubeConfig.getCurrentContext();
  if (!chosen) throw new Error(noCurrentContext(path, known));
  if (!kubeConfig.getContextObject(chosen)) throw new Error(missingContext(path, chosen, known));
  kubeConfig.setCurrentContext(chosen);
  if (!kubeConfig.getCurrentCluster()) throw new Error(contextWithoutCluster(path, chosen));
  return kubeConfig;
}
