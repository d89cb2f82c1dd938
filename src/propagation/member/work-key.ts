/**
 * The key of the execution controller: one Work on the hub, by namespace (the execution space
 * `karmada-es-<cluster>`) and name.
 *
 * Guarantees: `workKeyString` and `workKeyFromString` are inverse; the cluster of a key is the
 * execution space's name without its prefix, and keys outside an execution space name none.
 */
export interface WorkKey {
  namespace: string;
  name: string;
}

export const EXECUTION_SPACE_PREFIX = 'karmada-es-';

export function workKeyString(key: WorkKey): string {
  return `${key.namespace}/${key.name}`;
}

export function workKeyFromString(text: string): WorkKey {
  const slash = text.indexOf('/');
  if (slash <= 0 || slash === text.length - 1) throw new Error(`not a Work key: ${text}`);
  return { namespace: text.slice(0, slash), name: text.slice(slash + 1) };
}

/** The cluster whose execution space `namespace` is, or undefined. */
export function clusterOfExecutionSpace(namespace: string | undefined): string | undefined {
  if (!namespace?.startsWith(EXECUTION_SPACE_PREFIX)) return undefined;
  const cluster = namespace.slice(EXECUTION_SPACE_PREFIX.length);
  return cluster === '' ? undefined : cluster;
}
