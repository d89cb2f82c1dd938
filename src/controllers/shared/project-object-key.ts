/**
 * The key of a namespaced object in a project plane: `(project, namespace, name)`. The project
 * comes from the plane, the namespace from the object (controllers.md §1.2).
 *
 * Guarantees: the string form is a JSON array, so it round-trips every name and two different
 * keys never share a string; `planeOfKey` is the plane name the registry and the logs use.
 */
import { projectPlaneName } from '../../runtime/planes.ts';

export interface ProjectObjectKey {
  project: string;
  namespace: string;
  name: string;
}

export function projectObjectKeyString(key: ProjectObjectKey): string {
  return JSON.stringify([key.project, key.namespace, key.name]);
}

export function projectObjectKeyFromString(value: string): ProjectObjectKey {
  const parsed: unknown = JSON.parse(value);
  if (!Array.isArray(parsed) || parsed.length !== 3 || !parsed.every((part) => typeof part === 'string'))
    throw new Error(`a project object key is a JSON array of project, namespace and name, got ${value}`);
  const [project, namespace, name] = parsed;
  return { project, namespace, name };
}

export function planeOfKey(key: { project: string }): string {
  return projectPlaneName(key.project);
}
