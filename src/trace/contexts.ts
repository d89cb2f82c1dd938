/**
 * Kubeconfig context names: how the kubeconfig `netpresence up` writes names each plane, so that
 * `netpresence trace`, `netpresence hub-namespace` and the fleet agree on one spelling.
 *
 * Guarantees: one context per plane — `platform`, `hub`, `project-<project>` and, for a cell, the
 * name of its hub `Cluster` (the embedded fleet serves the Cluster named X as the plane named X,
 * propagation.md §1.2, so the default fleet's `cell-us-central-1` has context `cell-us-central-1`).
 */

/** The kubeconfig `netpresence up` writes when no other path is given. */
export const DEFAULT_KUBECONFIG = '.netpresence/kubeconfig';

export const PLATFORM_CONTEXT = 'platform';
export const HUB_CONTEXT = 'hub';

/** The context of project `project`'s control plane. */
export function projectContext(project: string): string {
  return `project-${project}`;
}

/** The context of the cell whose hub `Cluster` is named `cluster`. */
export function cellPlaneContext(cluster: string): string {
  return cluster;
}
