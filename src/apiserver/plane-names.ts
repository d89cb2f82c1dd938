/**
 * How the server names the planes it serves for Milo projects: `project-<name>` (server.ts adds
 * them; token requests and the write counter recognise them by it).
 */

/** The prefix of every project plane's name. */
export const PROJECT_PLANE_NAME_PREFIX = 'project-';

/** The name of the plane that serves `project`. */
export function projectPlaneName(project: string): string {
  return `${PROJECT_PLANE_NAME_PREFIX}${project}`;
}
