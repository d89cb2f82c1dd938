/**
 * End to end through `netpresence up` (scenarios.md §13, S108–S110): deleting the network under
 * a live interface, a retained address held across a binding's deletion and re-creation, and a
 * network edit reaching an existing interface. Fixture F, real-time bounds of 2 seconds.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ipAllocationKind } from '../../src/apis/ipam/v1alpha1/ip-allocation.ts';
import { networkBindingMessages } from '../../src/apis/networking/v1alpha/network-binding.ts';
import { networkContextMessages } from '../../src/apis/networking/v1alpha/network-context.ts';
import { resourceIdOf } from '../../src/runtime/resource-ids.ts';
import {
  allWithin,
  ALPHA,
  C,
  conditionOf,
  get,
  gone,
  isTrue,
  KINDS,
  scenario104,
  startFixtureF,
  SUBNET,
  WITHIN,
  type Any,
  type FleetFixture,
} from '../support/fleet.ts';

const IP_ALLOCATIONS = resourceIdOf(ipAllocationKind);
const ADDRESS = 'fd20::1:0:0/96';
const cellA = 'cell-a';

const terminating = async (
  f: FleetFixture,
  context: string,
  kind: keyof typeof KINDS,
  name: string,
  ns?: string,
) => (await get(f, context, kind, name, ns))?.metadata.deletionTimestamp !== undefined;
const rangeOccupied = (context: Any) =>
  context?.metadata.deletionTimestamp !== undefined &&
  conditionOf(context, 'IPAMAllocated')?.status === 'False' &&
  conditionOf(context, 'IPAMAllocated')?.reason === 'RangeOccupied';

describe('end to end on the embedded fleet: lifecycles', () => {
  let f: FleetFixture | undefined;
  afterEach(async () => {
    await f?.dispose();
    f = undefined;
  });

  it('S108 deleting a Network refuses its bindings and holds its context while addresses remain', async () => {
    const fx = (f = await startFixtureF());
    await scenario104(fx);
    await fx.client(ALPHA, KINDS.networks).delete('vpc', 'default');
    await allWithin(WITHIN, {
      'web is NetworkNotFound "… is being deleted"': async () => {
        const ready = conditionOf(await get(fx, 'hub', 'networkBindings', 'web', fx.H), 'Ready');
        return (
          ready?.reason === 'NetworkNotFound' &&
          ready.message === networkBindingMessages.networkDeleting('vpc', 'default', 'project-alpha')
        );
      },
      'the project-plane C is terminating with RangeOccupied': async () =>
        rangeOccupied(await get(fx, ALPHA, 'networkContexts', C, 'default')),
      'the hub copy of C is gone': () => gone(fx, 'hub', 'networkContexts', C, fx.H),
      'the cell copy of C is held': () => terminating(fx, 'cell-a', 'networkContexts', C, fx.H),
      'the Subnet and its copies remain': async () =>
        !(await gone(fx, ALPHA, 'subnets', SUBNET, 'default')) &&
        !(await gone(fx, 'hub', 'subnets', SUBNET, fx.H)) &&
        !(await gone(fx, 'cell-a', 'subnets', SUBNET, fx.H)),
    });
    await fx.client('cell-a', KINDS.claims).delete('web-0-eth0', fx.H);
    await allWithin(WITHIN, {
      'C is gone': () => gone(fx, ALPHA, 'networkContexts', C, 'default'),
      'the Subnet is gone': () => gone(fx, ALPHA, 'subnets', SUBNET, 'default'),
      'both IPClaims are gone': async () =>
        (await fx.client(ALPHA, KINDS.ipClaims).list({ namespace: 'default' })).items.length === 0,
      'the provisioned pools are gone': async () =>
        (await gone(fx, ALPHA, 'ipPools', 'datum-subnet-v6-vpc-us-central-1')) &&
        (await gone(fx, ALPHA, 'ipPools', 'datum-network-v6-vpc')),
      'vpc is gone': () => gone(fx, ALPHA, 'networks', 'vpc', 'default'),
      'the cell copies are gone': async () =>
        (await gone(fx, 'cell-a', 'networkContexts', C, fx.H)) &&
        (await gone(fx, 'cell-a', 'subnets', SUBNET, fx.H)),
      'web is NetworkNotFound "Network "vpc" was not found …"': async () => {
        const ready = conditionOf(await get(fx, 'hub', 'networkBindings', 'web', fx.H), 'Ready');
        return (
          ready?.reason === 'NetworkNotFound' &&
          ready.message === networkBindingMessages.networkNotFound('vpc', 'default', 'project-alpha')
        );
      },
    });
  });

  it('S109 a retained interface keeps its address and holds its context until it is deleted', async () => {
    const fx = (f = await startFixtureF());
    await scenario104(fx, { reclaimPolicy: 'Retain' });
    const claims = fx.client(cellA, KINDS.claims);
    await claims.delete('web-0-eth0', fx.H);
    await allWithin(WITHIN, {
      'the interface is Available with its address': async () => {
        const iface = await get(fx, cellA, 'interfaces', 'web-0-eth0', fx.H);
        return iface?.status?.phase === 'Available' && iface.spec.addresses[0].address === ADDRESS;
      },
    });
    const oldContext = await get(fx, ALPHA, 'networkContexts', C, 'default');
    await fx.client('hub', KINDS.networkBindings).delete('web', fx.H);
    await allWithin(WITHIN, {
      'the cell copy of C stays, held': () => terminating(fx, cellA, 'networkContexts', C, fx.H),
      'the project-plane C stays terminating with RangeOccupied': async () =>
        rangeOccupied(await get(fx, ALPHA, 'networkContexts', C, 'default')),
    });
    await fx.createClaim(cellA, 'web-0-eth0', { reclaimPolicy: 'Retain' });
    await allWithin(WITHIN, {
      'the new claim binds the retained interface with fd20::1:0:0/96': async () => {
        const claim = await get(fx, cellA, 'claims', 'web-0-eth0', fx.H);
        return isTrue(claim, 'Bound') && claim.status?.addresses?.[0]?.address === ADDRESS;
      },
    });
    await fx.createBinding('web');
    await allWithin(WITHIN, {
      'web is NetworkContextNotReady "Network context is being deleted."': async () => {
        const ready = conditionOf(await get(fx, 'hub', 'networkBindings', 'web', fx.H), 'Ready');
        return (
          ready?.reason === 'NetworkContextNotReady' &&
          ready.message === networkBindingMessages.contextDeleting
        );
      },
    });
    await claims.delete('web-0-eth0', fx.H);
    await fx.client(cellA, KINDS.interfaces).delete('web-0-eth0', fx.H);
    await allWithin(WITHIN, {
      'the IPClaim is gone': () => gone(fx, ALPHA, 'ipClaims', 'web-0-eth0.cell-a-f-ipv6', 'default'),
      'its retained IPAllocation is gone': async () =>
        (await fx.client<Any>(ALPHA, IP_ALLOCATIONS).list()).items.every((a: Any) => a.spec.cidr !== ADDRESS),
      'the old C finished deleting and a new C holds fd20::/64': async () => {
        const context = await get(fx, ALPHA, 'networkContexts', C, 'default');
        return (
          context !== undefined &&
          context.metadata.uid !== oldContext.metadata.uid &&
          conditionOf(context, 'IPAMAllocated')?.message === networkContextMessages.allocated('fd20::/64')
        );
      },
      'web is Ready': async () => isTrue(await get(fx, 'hub', 'networkBindings', 'web', fx.H), 'Ready'),
    });
  });

  it('S110 a network edit reaches existing interfaces', async () => {
    const fx = (f = await startFixtureF());
    await scenario104(fx);
    const before = {
      context: await get(fx, ALPHA, 'networkContexts', C, 'default'),
      hub: await get(fx, 'hub', 'networkContexts', C, fx.H),
      cell: await get(fx, cellA, 'networkContexts', C, fx.H),
      iface: await get(fx, cellA, 'interfaces', 'web-0-eth0', fx.H),
    };
    await fx.client(ALPHA, KINDS.networks).patchMerge('vpc', 'default', { spec: { mtu: 8856 } });
    const newer = (copy: Any, held: Any) =>
      copy?.spec.mtu === 8856 && copy.spec.networkGeneration > held.spec.networkGeneration;
    await allWithin(WITHIN, {
      'the project-plane C reads mtu 8856 with a larger networkGeneration': async () =>
        newer(await get(fx, ALPHA, 'networkContexts', C, 'default'), before.context),
      'its hub copy does': async () => newer(await get(fx, 'hub', 'networkContexts', C, fx.H), before.hub),
      'its cell copy does': async () => newer(await get(fx, cellA, 'networkContexts', C, fx.H), before.cell),
      'the interface reads mtu 8856': async () =>
        (await get(fx, cellA, 'interfaces', 'web-0-eth0', fx.H))?.spec.mtu === 8856,
    });
    const iface = await get(fx, cellA, 'interfaces', 'web-0-eth0', fx.H);
    assert.deepEqual(iface.spec.addresses, before.iface.spec.addresses, 'addresses are unchanged');
  });
});
