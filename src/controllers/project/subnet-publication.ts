/**
 * Subnet publication (controllers.md §4, step 7): the Subnet `<context>-ipv6` a context's held
 * /64 is published on, in the context's namespace, and its status. There is no separate subnet
 * controller (differs from NSO): the networkcontext controller writes both here.
 *
 * Guarantees:
 * - the Subnet carries the network and location labels, a spec naming the context, its
 *   location and the range's start and length, and exactly one controller reference — to the
 *   context, with `blockOwnerDeletion`; owner references of others that are not controllers stay;
 * - a Subnet being deleted is left alone (its deletion event wakes the context again);
 * - status carries the start and length, `Allocated=True` `PrefixAllocated`, and `Ready` from
 *   `Programmed`, which only the data plane writes;
 * - every write is skipped when the stored object already holds its value.
 */
import { jsonEqual } from '../../apis/common/json-equal.ts';
import { LOCATION_LABEL, NETWORK_LABEL } from '../../apis/common/labels.ts';
import { NETWORKING_API_VERSION } from '../../apis/networking/v1alpha/group.ts';
import { networkContextKind, type NetworkContext } from '../../apis/networking/v1alpha/network-context.ts';
import {
  ipv6SubnetName,
  PRIVATE_SUBNET_CLASS,
  SubnetConditionType,
  subnetMessages,
  SubnetReason,
  type Subnet,
} from '../../apis/networking/v1alpha/subnet.ts';
import { isAlreadyExists } from '../../client/errors.ts';
import type { ResourceClient } from '../../client/types.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';
import { isConditionTrue, setCondition, type DesiredCondition } from '../../runtime/conditions.ts';
import { parsePrefix } from '../shared/prefix.ts';
import { changedLabels, patchStatus } from '../../runtime/writes.ts';

/** Where Subnets are read and written: a project plane's store and client, and the time. */
export interface SubnetAccess {
  subnets: ObjectStore<Subnet>;
  client: ResourceClient<Subnet>;
  now(): number;
  /** Carried by a new Subnet from its create (NetworkContextConfig.subnetFinalizers). */
  finalizers?: readonly string[];
}

/** Creates or patches the Subnet `<context>-ipv6` for `cidr`, then its status; returns its name. */
export async function publishSubnet(
  context: NetworkContext,
  cidr: string,
  access: SubnetAccess,
): Promise<string> {
  const { startAddress, prefixLength } = parsePrefix(cidr);
  const namespace = context.metadata.namespace!;
  const subnetName = ipv6SubnetName(context.metadata.name!);
  const labels = { [NETWORK_LABEL]: context.spec.network.name, [LOCATION_LABEL]: context.spec.location.name };
  const spec: Subnet['spec'] = {
    subnetClass: PRIVATE_SUBNET_CLASS,
    ipFamily: 'IPv6',
    networkContext: { name: context.metadata.name! },
    location: { name: context.spec.location.name },
    startAddress,
    prefixLength,
  };
  const controllerRef = {
    apiVersion: NETWORKING_API_VERSION,
    kind: networkContextKind.kind,
    name: context.metadata.name!,
    uid: context.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
  let subnet = access.subnets.get(namespace, subnetName);
  if (subnet?.metadata.deletionTimestamp) return subnetName; // its deletion event brings the key back
  if (!subnet) {
    try {
      subnet = await access.client.create({
        metadata: {
          name: subnetName,
          namespace,
          labels,
          ownerReferences: [controllerRef],
          ...(access.finalizers?.length && { finalizers: [...access.finalizers] }),
        },
        spec,
      });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      subnet = await access.client.get(subnetName, namespace);
      if (!subnet) throw err;
    }
  }
  subnet = await patchSubnet(subnet, { labels, spec, controllerRef }, access);
  await patchSubnetStatus(subnet, cidr, access);
  return subnetName;
}

interface SubnetDesired {
  labels: Record<string, string>;
  spec: Subnet['spec'];
  controllerRef: NonNullable<Subnet['metadata']['ownerReferences']>[number];
}

/** Patches the owned labels, the spec and the one controller reference where they differ. */
async function patchSubnet(subnet: Subnet, desired: SubnetDesired, access: SubnetAccess): Promise<Subnet> {
  const labels = changedLabels(subnet, desired.labels);
  const held = subnet.metadata.ownerReferences ?? [];
  const others = held.filter((ref) => ref.controller !== true && ref.uid !== desired.controllerRef.uid);
  const ownerReferences = [desired.controllerRef, ...others];
  const ownersChanged = !jsonEqual(held, ownerReferences);
  const specChanged = !jsonEqual(subnet.spec, desired.spec);
  if (!labels && !ownersChanged && !specChanged) return subnet;
  return access.client.patchMerge(subnet.metadata.name!, subnet.metadata.namespace, {
    metadata: { ...(labels && { labels }), ...(ownersChanged && { ownerReferences }) },
    ...(specChanged && { spec: desired.spec }),
  });
}

/** Subnet status: the allocated start and length, `Allocated`, and `Ready` from `Programmed`. */
async function patchSubnetStatus(subnet: Subnet, cidr: string, access: SubnetAccess): Promise<void> {
  const generation = subnet.metadata.generation;
  const now = access.now();
  let conditions = setCondition(
    subnet.status?.conditions,
    {
      type: SubnetConditionType.Allocated,
      status: 'True',
      reason: SubnetReason.PrefixAllocated,
      message: subnetMessages.allocated(cidr),
    },
    generation,
    now,
  );
  const ready: DesiredCondition = isConditionTrue(conditions, SubnetConditionType.Programmed)
    ? {
        type: SubnetConditionType.Ready,
        status: 'True',
        reason: SubnetReason.Ready,
        message: subnetMessages.ready,
      }
    : {
        type: SubnetConditionType.Ready,
        status: 'False',
        reason: SubnetReason.NotProgrammed,
        message: subnetMessages.notProgrammed,
      };
  conditions = setCondition(conditions, ready, generation, now);
  await patchStatus(access.client, subnet, {
    startAddress: subnet.spec.startAddress,
    prefixLength: subnet.spec.prefixLength,
    conditions,
  });
}
