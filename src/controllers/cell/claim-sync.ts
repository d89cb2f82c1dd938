/**
 * Keeping a bound interface and its claim current (controllers.md §10 steps 11–13): the
 * interface spec follows the context (MTU), the claim (attachment mode, primary family) and the
 * Subnets (gateways); both statuses report the binding.
 *
 * Guarantees: each object gets at most one spec write and one status write per reconcile, and
 * none when nothing differs; an address whose Subnet is refused keeps its gateway while every
 * other change is still written, and the first refusal is returned for the claim's `Ready`;
 * `status.vpc`, `status.attachmentRef` and the data-plane conditions are never overwritten.
 */
import { jsonEqual } from '../../apis/common/json-equal.ts';
import type { NetworkContext } from '../../apis/networking/v1alpha/network-context.ts';
import type { NetworkInterfaceClaim } from '../../apis/networking/v1alpha/network-interface-claim.ts';
import type {
  NetworkInterface,
  NetworkInterfaceAddress,
} from '../../apis/networking/v1alpha/network-interface.ts';
import type { Subnet } from '../../apis/networking/v1alpha/subnet.ts';
import type { ResourceClient } from '../../client/types.ts';
import { patchStatus } from '../../runtime/writes.ts';
import { claimFamilies } from './address-requests.ts';
import { allocatedCondition, boundConditions, seedDataPlane } from './claim-conditions.ts';
import { gatewayFor } from './gateway.ts';
import { setCondition } from '../../runtime/conditions.ts';

export interface SyncedSpec {
  iface: NetworkInterface;
  /** The first SubnetGatewayUnusable message, if any address's Subnet was refused. */
  gatewayRefusal?: string;
}

/**
 * The gateway rule and the primary flags applied to `addresses`: a refused Subnet leaves its
 * address's gateway as it is and is reported (the first refusal).
 */
export function desiredAddresses(
  addresses: readonly NetworkInterfaceAddress[],
  claim: NetworkInterfaceClaim,
  contextName: string,
  subnets: readonly Subnet[],
): { addresses: NetworkInterfaceAddress[]; gatewayRefusal?: string } {
  const primaryFamily = claimFamilies(claim)[0];
  let gatewayRefusal: string | undefined;
  const desired = addresses.map((address): NetworkInterfaceAddress => {
    const outcome = gatewayFor(subnets, contextName, address.family);
    let gateway = address.gateway;
    if (outcome.kind === 'gateway') gateway = outcome.gateway;
    else if (outcome.kind === 'refused') gatewayRefusal ??= outcome.message;
    const { gateway: _held, ...rest } = address;
    return { ...rest, primary: address.family === primaryFamily, ...(gateway !== undefined && { gateway }) };
  });
  return { addresses: desired, gatewayRefusal };
}

/** Step 11: MTU, attachment mode, primary flags and gateways, in one write when any differs. */
export async function syncInterfaceSpec(
  iface: NetworkInterface,
  claim: NetworkInterfaceClaim,
  context: NetworkContext,
  subnets: readonly Subnet[],
  client: ResourceClient<NetworkInterface>,
): Promise<SyncedSpec> {
  const { addresses, gatewayRefusal } = desiredAddresses(
    iface.spec.addresses ?? [],
    claim,
    context.metadata.name!,
    subnets,
  );
  const patch: Record<string, unknown> = {};
  if (context.spec.mtu !== undefined && iface.spec.mtu !== context.spec.mtu) patch.mtu = context.spec.mtu;
  if (claim.spec.attachmentMode !== undefined && iface.spec.attachmentMode !== claim.spec.attachmentMode)
    patch.attachmentMode = claim.spec.attachmentMode;
  if (!jsonEqual(addresses, iface.spec.addresses ?? [])) patch.addresses = addresses;
  if (Object.keys(patch).length === 0) return { iface, gatewayRefusal };
  const written = await client.patchMerge(iface.metadata.name!, iface.metadata.namespace, {
    metadata: { resourceVersion: iface.metadata.resourceVersion },
    spec: patch,
  });
  return { iface: written, gatewayRefusal };
}

/** Step 12: phase Bound, the context breadcrumb, Allocated; data-plane conditions seeded when absent. */
export async function writeInterfaceStatus(
  iface: NetworkInterface,
  contextName: string,
  finding: string | undefined,
  now: number,
  client: ResourceClient<NetworkInterface>,
): Promise<NetworkInterface> {
  const generation = iface.metadata.generation;
  const conditions = seedDataPlane(
    setCondition(iface.status?.conditions, allocatedCondition(finding), generation, now),
    generation,
    now,
  );
  return patchStatus(client, iface, { phase: 'Bound', networkContextRef: { name: contextName }, conditions });
}

/** Step 13: the claim repeats the interface's addresses and reports Bound, Allocated and Ready. */
export async function writeClaimStatus(
  claim: NetworkInterfaceClaim,
  iface: NetworkInterface,
  finding: string | undefined,
  gatewayRefusal: string | undefined,
  now: number,
  client: ResourceClient<NetworkInterfaceClaim>,
): Promise<NetworkInterfaceClaim> {
  const name = iface.metadata.name!;
  return patchStatus(client, claim, {
    addresses: iface.spec.addresses ?? [],
    externalAddresses: iface.spec.externalAddresses ?? [],
    networkInterfaceRef: { name },
    conditions: boundConditions(
      claim.status?.conditions,
      name,
      finding,
      gatewayRefusal,
      claim.metadata.generation,
      now,
    ),
  });
}
