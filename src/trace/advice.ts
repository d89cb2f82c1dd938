/**
 * What to do about a failing hop: the words `netpresence trace` prints after the hop it finds
 * first failing. One entry per way a hop can fail, kept together so the tests, the help and the
 * output say the same thing.
 *
 * Guarantees: every entry names the object to change or the process to check, in the plane
 * where it lives, and the label or field that decides.
 */
import { CLUSTER_LOCATION_LABEL, LOCATION_LABEL } from '../apis/common/labels.ts';
import { UPSTREAM_CLUSTER_NAME_LABEL, UPSTREAM_NAMESPACE_LABEL } from '../apis/common/upstream.ts';
import { IpamFailureReason } from '../apis/networking/v1alpha/ipam-failures.ts';

const MANAGER = '`netpresence manager`';
const PROPAGATION = 'propagation (Karmada, or `netpresence propagator`)';
const cell = (cluster: string) => `\`netpresence cell\` for cell "${cluster}"`;

export const advice = {
  bindingMissing: (namespace: string, name: string) =>
    `create NetworkBinding "${name}" in hub namespace "${namespace}", or check the name (\`netpresence hub-namespace <project>/<namespace>\` prints the hub namespace)`,
  bindingPending: `no controller has judged the binding yet: check that ${MANAGER} runs against this hub and holds its Lease`,
  bindingStale: (reason: string) =>
    `the binding still reports ${reason}, but what it refers to looks fine now: check that ${MANAGER} runs and look at its log for this binding`,
  noBindingForPair: (namespace: string, network: string, location: string) =>
    `create a NetworkBinding in hub namespace "${namespace}" with spec.network.name "${network}" and spec.location.name "${location}": a network reaches a location only while a binding declares it`,
  hubNamespaceMissing: (namespace: string) =>
    `hub namespace "${namespace}" does not exist: find the right one with \`netpresence hub-namespace <project>/<namespace>\``,
  hubNamespaceUnlabelled: (namespace: string) =>
    `label namespace "${namespace}" on the hub with ${UPSTREAM_CLUSTER_NAME_LABEL}=cluster-<project> and ${UPSTREAM_NAMESPACE_LABEL}=<project namespace>`,
  cellNamespaceUnlabelled: (namespace: string, cluster: string) =>
    `namespace "${namespace}" in cell "${cluster}" lacks its upstream labels (${UPSTREAM_CLUSTER_NAME_LABEL}, ${UPSTREAM_NAMESPACE_LABEL}); label hub namespace "${namespace}" and let ${PROPAGATION} carry it to the cell`,
  projectMissing: (project: string) =>
    `Project "${project}" does not exist on the platform: create it, or fix the hub namespace's ${UPSTREAM_CLUSTER_NAME_LABEL} label`,
  projectNotReady: (project: string) =>
    `Project "${project}" is not Ready on the platform, so ${MANAGER} does not engage its plane: wait for the platform to provision it`,
  platformUnreadable: `give a kubeconfig whose "platform" context reaches the platform (\`--kubeconfig\`)`,
  planeUnreadable: (plane: string) =>
    `make plane "${plane}" readable through the kubeconfig: add or fix its context "${plane}"`,
  projectNamespaceMissing: (project: string, namespace: string) =>
    `create namespace "${namespace}" in project "${project}"'s control plane`,
  projectNamespaceReplaced: (hubNamespace: string, current: string) =>
    `the project namespace was recreated: hub namespace "${hubNamespace}" belongs to its predecessor; use hub namespace "${current}"`,
  locationBindingMissing: (project: string, location: string) =>
    `Project "${project}" has no LocationBinding "${location}": the platform projects one when Location "${location}" is Ready and a ServiceAvailability offers networking.datumapis.com there; check both on the platform`,
  misdirectedNetwork: (namespace: string) =>
    `set the binding's spec.network.namespace to "${namespace}" or leave it out (recreate the binding: spec.network is immutable)`,
  networkMissing: (project: string, namespace: string, network: string) =>
    `create Network "${network}" in namespace "${namespace}" of project "${project}", or bind a network that exists`,
  networkDeleting: (network: string) =>
    `Network "${network}" is being deleted; recreate it once it is gone, or bind another network`,
  familyNotCarried: (project: string, namespace: string, network: string, family: string) =>
    `add ${family} to spec.ipFamilies of Network "${network}" in namespace "${namespace}" of project "${project}", or request only the families it carries`,
  familiesUnknown: (context: string) =>
    `network context "${context}" states no spec.ipFamilies: check the Network's spec.ipFamilies and that the copies are current`,
  familyNotCarriedHere: (context: string, family: string) =>
    `network context "${context}" does not carry ${family}: if the Network lists it now, the presence controller, the replicator and propagation have not caught up yet`,
  contextMissing: `the presence controller creates the project context: check that ${MANAGER} runs and engages the project`,
  nameConflict: (context: string) =>
    `network context "${context}" already serves another (network, location) pair that derives the same name: rename one of the networks`,
  contextWaiting: `the networkcontext controller has not judged the context: check that ${MANAGER} runs`,
  contextDeleting: (context: string) =>
    `network context "${context}" is being deleted; the presence controller recreates it once it is gone`,
  contextOfEarlierNetwork: (context: string) =>
    `network context "${context}" belongs to an earlier network of the same name; garbage collection removes it and the presence controller recreates it`,
  subnetMissing: (context: string) =>
    `the networkcontext controller publishes the Subnet once the context's /64 is held; see network context "${context}"`,
  subnetWaiting: `the networkcontext controller has not allocated the Subnet yet: check that ${MANAGER} runs`,
  copyMissing: `the replicator copies project contexts and Subnets to the hub: check that ${MANAGER} runs and engages the project`,
  copyStale: `the copy differs from its source: the replicator has not caught up; check that ${MANAGER} runs`,
  copyUnlabelled: (location: string) =>
    `the hub copy lacks ${LOCATION_LABEL}=${location}, so policy location-${location} does not select it: the replicator copies the label from the project object`,
  policyMissing: (location: string) =>
    `the location publisher writes ClusterPropagationPolicy "location-${location}" once Location "${location}" is Ready and offers networking: check Location "${location}" and ServiceAvailability on the platform, and ${MANAGER}`,
  policyUnclaimed: (location: string) =>
    `no propagation engine has taken up ClusterPropagationPolicy "location-${location}": run ${PROPAGATION} against this hub`,
  noCells: (location: string) =>
    `no Cluster serves location "${location}": label the Cluster of each cell serving it with ${CLUSTER_LOCATION_LABEL}=${location}`,
  clusterMissing: (cluster: string) =>
    `the hub has no Cluster "${cluster}": register the cell with the hub, or check the cell name`,
  clusterUnlabelled: (cluster: string, location: string) =>
    `label Cluster "${cluster}" on the hub with ${CLUSTER_LOCATION_LABEL}=${location}: only labelled clusters receive the location's network contexts`,
  clusterNoLocation: (cluster: string) =>
    `label Cluster "${cluster}" on the hub with ${CLUSTER_LOCATION_LABEL}=<the location it serves>`,
  clusterNotReady: (cluster: string) =>
    `Cluster "${cluster}" is not Ready: ${PROPAGATION} applies nothing to it until it is`,
  cellCopyMissing: (cluster: string, location: string) =>
    `${PROPAGATION} has not delivered it to cell "${cluster}": check Cluster "${cluster}" carries ${CLUSTER_LOCATION_LABEL}=${location} and is Ready, and that ClusterPropagationPolicy "location-${location}" exists`,
  cellCopyStale: (cluster: string) =>
    `the cell copy differs from the hub copy: ${PROPAGATION} has not caught up with cell "${cluster}"`,
  noIdentity: (cluster: string, location: string) =>
    `ServingLocation "${location}" has not reached cell "${cluster}": check ServingLocation "${location}" on the hub (the location publisher writes it), policy location-${location}, and ${PROPAGATION}; or start ${cell(cluster)} with --location ${location}`,
  ambiguousIdentity: (cluster: string) =>
    `several ServingLocations reached cell "${cluster}": give Cluster "${cluster}" exactly one ${CLUSTER_LOCATION_LABEL} label, or start ${cell(cluster)} with --location`,
  gateway: (subnet: string) =>
    `Subnet "${subnet}" yields no gateway: fix its start address and prefix length at the source (the project-plane Subnet)`,
  interfaceMissing: (cluster: string) =>
    `the claim controller creates the interface once every address is allocated: check that ${cell(cluster)} runs`,
  interfaceHeld: (other: string) =>
    `the interface belongs to claim "${other}": name another interface in spec.networkInterfaceName, or delete claim "${other}" first`,
  interfaceIncompatible: (iface: string) =>
    `interface "${iface}" was made for another request: create the claim with a spec matching the interface (the spec is immutable), or delete the interface if its addresses may go`,
  addressAllocationMissing: (iface: string) =>
    `an address on interface "${iface}" has no IPAM allocation behind it and may be handed to someone else: delete the claim and interface to allocate afresh`,
  addressesWaiting: (cluster: string) =>
    `the claim controller has not allocated yet: check that ${cell(cluster)} runs`,
  claimMissing: (cluster: string, namespace: string, name: string) =>
    `cell "${cluster}" has no NetworkInterfaceClaim "${name}" in namespace "${namespace}": check the reference <cell>/<namespace>/<name>`,
  claimPending: (cluster: string) =>
    `no controller has judged the claim yet: check that ${cell(cluster)} runs`,
  claimStale: (reason: string, cluster: string) =>
    `the claim still reports ${reason}, but what it refers to looks fine now: ${cell(cluster)} retries refusals every 60 s; check its log if it persists`,
};

/** What to do about an IPAM failure reported on a network, a context or a claim. */
export function ipamAdvice(reason: string, project: string): string {
  switch (reason) {
    case IpamFailureReason.AddressPoolExhausted:
      return `an IPPool of project "${project}" is exhausted: release addresses or add a pool for the class`;
    case IpamFailureReason.RetainedAddressConflict:
      return `a retained IPAllocation in project "${project}" holds the name: delete the IPAllocation the message names to reuse it`;
    case IpamFailureReason.AddressAllocationRejected:
      return `IPAM refused the request: check the IPClass and IPPools of project "${project}" the message names`;
    case IpamFailureReason.ProjectNamespaceNotFound:
      return `IPAM reports the project namespace missing in project "${project}": create it`;
    case IpamFailureReason.RangeOccupied:
      return `addresses are still allocated inside the range: release them (delete the interfaces using it) first`;
    case IpamFailureReason.RangeUnsupported:
      return `the IPAM of project "${project}" does not keep ranges: configure a class that allocates ranges`;
    default:
      return `IPAM failed: the message says why; the controller retries`;
  }
}
