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
  return withContext(parseKubeConfig(path), path, context);
}

/** The file parsed, its current context unchecked: pick contexts from it with `withContext`. */
export function parseKubeConfig(path: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromFile(path);
  } catch (err) {
    throw new Error(unreadableKubeconfig(path, (err as Error).message), { cause: err });
  }
  return kubeConfig;
}

/**
 * A KubeConfig of `parsed`'s clusters, users and contexts (shared, not copied) whose current
 * context is `context` (default: the file's): one parse of a file naming a thousand planes
 * serves a client per plane.
 */
export function withContext(parsed: KubeConfig, path: string, context?: string): KubeConfig {
  const known = parsed.getContexts().map((c) => c.name);
  const chosen = context ?? parsed.getCurrentContext();
  if (!chosen) throw new Error(noCurrentContext(path, known));
  if (!parsed.getContextObject(chosen)) throw new Error(missingContext(path, chosen, known));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: parsed.getClusters(),
    users: parsed.getUsers(),
    contexts: parsed.getContexts(),
    currentContext: chosen,
  });
  if (!kubeConfig.getCurrentCluster()) throw new Error(contextWithoutCluster(path, chosen));
  return kubeConfig;
}
