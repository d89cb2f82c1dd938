/**
 * The references `netpresence trace` and `netpresence hub-namespace` take on the command line.
 *
 * Guarantees: each parser accepts exactly its number of non-empty `/`-separated parts (a project
 * may itself contain no `/`) and otherwise throws an error showing the expected form and what was
 * given.
 */
import type { BindingRef } from './binding.ts';
import type { ClaimRef } from './trace-claim.ts';

export const refMessages = {
  binding: (given: string) => `expected <hub-namespace>/<name>, for example ns-1234/web; got "${given}"`,
  claim: (given: string) =>
    `expected <cell>/<namespace>/<name>, for example cell-us-central-1/ns-1234/web-0; got "${given}"`,
  projectNamespace: (given: string) =>
    `expected <project>[/<namespace>], for example project-alpha/default; got "${given}"`,
};

function parts(given: string, count: number): string[] | undefined {
  const split = given.split('/');
  return split.length === count && split.every((part) => part !== '') ? split : undefined;
}

export function parseBindingRef(given: string): BindingRef {
  const split = parts(given, 2);
  if (!split) throw new Error(refMessages.binding(given));
  return { namespace: split[0], name: split[1] };
}

export function parseClaimRef(given: string): ClaimRef {
  const split = parts(given, 3);
  if (!split) throw new Error(refMessages.claim(given));
  return { cell: split[0], namespace: split[1], name: split[2] };
}

export interface ProjectNamespaceRef {
  project: string;
  namespace: string;
}

export const DEFAULT_PROJECT_NAMESPACE = 'default';

export function parseProjectNamespaceRef(given: string): ProjectNamespaceRef {
  const split = parts(given, 2) ?? parts(given, 1);
  if (!split) throw new Error(refMessages.projectNamespace(given));
  return { project: split[0], namespace: split[1] ?? DEFAULT_PROJECT_NAMESPACE };
}
