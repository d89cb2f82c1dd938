/**
 * The key of a namespaced object in a project plane: `(project, namespace, name)`. The project
 * comes from the plane, the namespace from the object (controllers.md §1.2).
 *
 * Guarantees: the string form is a JSON array, so it round-trips every name and two different
 * keys never share a string; `planeOfKey` is the plane name the registry and the logs use.
 */
import { projectPlaneName } from '../../runtime/planes.ts';
import { tupleKey, type KeyOf } from '../../runtime/tuple-key.ts';

const projectObjectKey = tupleKey('a project object key', ['project', 'namespace', 'name']);
export type ProjectObjectKey = KeyOf<typeof projectObjectKey>;
export const projectObjectKeyString = projectObjectKey.toString;
export const projectObjectKeyFromString = projectObjectKey.fromString;

/** The key of object `name` in `namespace` (cluster-scoped: none) of `project`'s plane. */
export function projectObjectKeyOf(
  project: string,
  namespace: string | undefined,
  name: string,
): ProjectObjectKey {
  return { project, namespace: namespace ?? '', name };
}

/** The key of each object of `project`'s plane it is given: for triggers and `keys`. */
export function keyOfObjectIn(
  project: string,
): (object: { metadata: { namespace?: string; name?: string } }) => ProjectObjectKey {
  return (object) => projectObjectKeyOf(project, object.metadata.namespace, object.metadata.name!);
}

export function planeOfKey(key: { project: string }): string {
  return projectPlaneName(key.project);
}
