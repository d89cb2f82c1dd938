/**
 * The hub namespace of a project namespace: `ns-<metadata.uid>` of the Namespace in the project's
 * control plane (apis.md §7.4), read through the project's kubeconfig context.
 *
 * Guarantees: resolves the name only from the Namespace as the project plane holds it now; a
 * missing namespace, a project the platform does not hold, or an unreadable plane throws an error
 * naming the project (and the namespace).
 */
import { hubNamespaceName } from '../apis/common/upstream.ts';
import { PLATFORM_CONTEXT, projectContext } from './contexts.ts';
import { Kinds, PlaneUnavailableError, type PlaneReader } from './reader.ts';
import type { ProjectNamespaceRef } from './refs.ts';

export const hubNamespaceMessages = {
  namespaceMissing: (project: string, namespace: string) =>
    `project "${project}" has no namespace "${namespace}" in its control plane: create it, or name another namespace (<project>/<namespace>)`,
  projectMissing: (project: string) =>
    `project "${project}" does not exist on the platform: check the name (the Project objects on the platform list them)`,
  projectUnreadable: (project: string, cause: string) =>
    `project "${project}"'s control plane cannot be read (is the project's name right, and is it Ready?): ${cause}`,
};

export async function resolveHubNamespace(reader: PlaneReader, ref: ProjectNamespaceRef): Promise<string> {
  let namespace;
  try {
    namespace = await reader.get(projectContext(ref.project), Kinds.namespace, ref.namespace);
  } catch (err) {
    if (err instanceof PlaneUnavailableError)
      throw new Error(hubNamespaceMessages.projectUnreadable(ref.project, err.message), { cause: err });
    throw err;
  }
  if (!namespace?.metadata.uid) {
    // An unserved project plane reads as empty, so say which of the two is missing.
    if (!(await projectExists(reader, ref.project)))
      throw new Error(hubNamespaceMessages.projectMissing(ref.project));
    throw new Error(hubNamespaceMessages.namespaceMissing(ref.project, ref.namespace));
  }
  return hubNamespaceName(namespace.metadata.uid);
}

/** Whether the platform holds Project `project`; true when the platform cannot be read. */
async function projectExists(reader: PlaneReader, project: string): Promise<boolean> {
  try {
    return (await reader.get(PLATFORM_CONTEXT, Kinds.project, project)) !== undefined;
  } catch (err) {
    if (err instanceof PlaneUnavailableError) return true;
    throw err;
  }
}
