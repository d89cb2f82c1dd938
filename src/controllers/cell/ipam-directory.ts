/**
 * IPAM as the cell reaches it (controllers.md §1.3): for project `P`, the Milo project path
 * under the configured IPAM base, one set of clients per project, cached, with no impersonation.
 *
 * Guarantees: the same project always gets the same clients; an empty project name is an error,
 * never a request to the base itself.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { ipAllocationKind, type IPAllocation } from '../../apis/ipam/v1alpha1/ip-allocation.ts';
import { ipClaimKind, type IPClaim } from '../../apis/ipam/v1alpha1/ip-claim.ts';
import { ipClassKind, type IPClass } from '../../apis/ipam/v1alpha1/ip-class.ts';
import { resourceClient } from '../../client/resource-client.ts';
import type { ResourceClient } from '../../client/types.ts';
import { projectKubeConfig } from '../../runtime/planes.ts';
import { resourceIdOf } from '../../runtime/resource-ids.ts';

export interface ProjectIpam {
  project: string;
  claims: ResourceClient<IPClaim>;
  allocations: ResourceClient<IPAllocation>;
  classes: ResourceClient<IPClass>;
}

export const noProjectForIpam = 'IPAM cannot be reached for an empty project name';

export class IpamDirectory {
  private readonly projects = new Map<string, ProjectIpam>();

  constructor(private readonly base: KubeConfig) {}

  forProject(project: string): ProjectIpam {
    if (project === '') throw new Error(noProjectForIpam);
    let ipam = this.projects.get(project);
    if (!ipam) {
      const kubeConfig = projectKubeConfig(this.base, project);
      ipam = {
        project,
        claims: resourceClient<IPClaim>(kubeConfig, resourceIdOf(ipClaimKind)),
        allocations: resourceClient<IPAllocation>(kubeConfig, resourceIdOf(ipAllocationKind)),
        classes: resourceClient<IPClass>(kubeConfig, resourceIdOf(ipClassKind)),
      };
      this.projects.set(project, ipam);
    }
    return ipam;
  }
}
