/**
 * PlaneReader: what a trace needs from the planes — read one object, or list a kind, in the plane
 * a kubeconfig context names. Implemented over a kubeconfig in kubeconfig-reader.ts and by a fake
 * in test/support/fake-plane-reader.ts, so the trace logic runs without a fleet.
 *
 * Guarantees: `get` resolves undefined for a missing object; a plane that cannot be reached (no
 * such context, refused connection, an identity that may not read) rejects with
 * `PlaneUnavailableError`, whose message names the plane and the cause.
 */
import { clusterKind } from '../apis/cluster/v1alpha1/cluster.ts';
import { ipClaimKind } from '../apis/ipam/v1alpha1/ip-claim.ts';
import { locationBindingKind } from '../apis/networking/v1alpha/location-binding.ts';
import { networkBindingKind } from '../apis/networking/v1alpha/network-binding.ts';
import { networkContextKind } from '../apis/networking/v1alpha/network-context.ts';
import { networkInterfaceClaimKind } from '../apis/networking/v1alpha/network-interface-claim.ts';
import { networkInterfaceKind } from '../apis/networking/v1alpha/network-interface.ts';
import { networkKind } from '../apis/networking/v1alpha/network.ts';
import { servingLocationKind } from '../apis/networking/v1alpha/serving-location.ts';
import { subnetKind } from '../apis/networking/v1alpha/subnet.ts';
import { clusterPropagationPolicyKind } from '../apis/policy/v1alpha1/cluster-propagation-policy.ts';
import { projectKind } from '../apis/resourcemanager/v1alpha1/project.ts';
import type { KubeObject, ResourceId } from '../client/types.ts';
import { NAMESPACES, resourceIdOf } from '../runtime/resource-ids.ts';

export interface PlaneReader {
  get<T extends KubeObject>(
    plane: string,
    kind: ResourceId,
    name: string,
    namespace?: string,
  ): Promise<T | undefined>;
  list<T extends KubeObject>(
    plane: string,
    kind: ResourceId,
    options?: { namespace?: string; labelSelector?: string },
  ): Promise<T[]>;
}

export class PlaneUnavailableError extends Error {
  constructor(
    readonly plane: string,
    cause: string,
  ) {
    super(`plane "${plane}" cannot be read: ${cause}`);
    this.name = 'PlaneUnavailableError';
  }
}

/** The kinds a trace reads. */
export const Kinds = {
  namespace: NAMESPACES,
  project: resourceIdOf(projectKind),
  networkBinding: resourceIdOf(networkBindingKind),
  network: resourceIdOf(networkKind),
  locationBinding: resourceIdOf(locationBindingKind),
  networkContext: resourceIdOf(networkContextKind),
  subnet: resourceIdOf(subnetKind),
  cluster: resourceIdOf(clusterKind),
  clusterPropagationPolicy: resourceIdOf(clusterPropagationPolicyKind),
  servingLocation: resourceIdOf(servingLocationKind),
  networkInterfaceClaim: resourceIdOf(networkInterfaceClaimKind),
  networkInterface: resourceIdOf(networkInterfaceKind),
  ipClaim: resourceIdOf(ipClaimKind),
} satisfies Record<string, ResourceId>;
