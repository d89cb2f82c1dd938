/**
 * Where a Milo project's own control plane is served, relative to the platform's API:
 * `/apis/resourcemanager.miloapis.com/v1alpha1/projects/<project>/control-plane` (DESIGN §1, §3).
 * The one place the path is built — by the server that serves project planes and by the clients
 * that reach them.
 *
 * Guarantees: the project name is URI-encoded, so any name yields one path segment; every path
 * starts with PROJECT_PLANE_PREFIX. Imports nothing, so the generic API server may use it.
 */
export const PROJECT_PLANE_PREFIX = '/apis/resourcemanager.miloapis.com/v1alpha1/projects/';

export function projectControlPlanePath(project: string): string {
  return `${PROJECT_PLANE_PREFIX}${encodeURIComponent(project)}/control-plane`;
}
