import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ClaimReason,
  claimRefusalMessages,
  gatewayMessages,
} from '../apis/networking/v1alpha/claim-refusals.ts';
import { advice, ipamAdvice } from './advice.ts';
import { traceClaim } from './trace-claim.ts';
import { HUB_CONTEXT } from './contexts.ts';
import type { HopId } from './hop.ts';
import { Kinds } from './reader.ts';
import {
  CELL,
  CLAIM,
  condition,
  CONTEXT,
  HUB_NS,
  LOCATION,
  NETWORK,
  PROJECT,
  PROJECT_PLANE,
  SUBNET,
  TestWorld,
} from '../../test/support/trace-world.ts';
import { copyAdvice } from './interface-copy-hops.ts';
import { exitCodeOf, verdictOf } from './verdict.ts';

const ref = { cell: CELL, namespace: HUB_NS, name: CLAIM };

async function trace(world: TestWorld) {
  const hops = await traceClaim(world.reader, ref);
  return { hops, verdict: verdictOf(hops), exit: exitCodeOf(hops) };
}

type Spec = Record<string, unknown>;
const editInterface = (w: TestWorld, change: (spec: Spec) => void) =>
  w.edit(CELL, Kinds.networkInterface, CLAIM, HUB_NS, (iface) => change(iface.spec as Spec));
const editClaim = (w: TestWorld, change: (spec: Spec) => void) =>
  w.edit(CELL, Kinds.networkInterfaceClaim, CLAIM, HUB_NS, (claim) => change(claim.spec as Spec));
const removeInterface = async (w: TestWorld) =>
  void w.reader.remove(CELL, Kinds.networkInterface, CLAIM, HUB_NS);

/** Sets the Subnet's spec in the project plane, on the hub and in the cell alike. */
async function subnetEverywhere(w: TestWorld, change: (spec: Spec) => void): Promise<void> {
  await w.edit(PROJECT_PLANE, Kinds.subnet, SUBNET, 'default', (subnet) => change(subnet.spec as Spec));
  for (const plane of [HUB_CONTEXT, CELL])
    await w.edit(plane, Kinds.subnet, SUBNET, HUB_NS, (subnet) => change(subnet.spec as Spec));
}

interface RefusalCase {
  title: string;
  reason: string;
  /** Whether the claim still holds its interface when refused. */
  bound?: boolean;
  arrange(world: TestWorld): Promise<void>;
  hop: HopId;
  advice: string;
  note?: string;
}

const refusals: RefusalCase[] = [
  {
    title: 'no ServingLocation delivered to a labelled cell',
    reason: ClaimReason.NoLocationIdentity,
    bound: false,
    arrange: async (w) => void w.reader.remove(CELL, Kinds.servingLocation, LOCATION),
    hop: 'identity',
    advice: advice.noIdentity(CELL, LOCATION),
  },
  {
    title: 'an unlabelled cell with no ServingLocation',
    reason: ClaimReason.NoLocationIdentity,
    bound: false,
    arrange: async (w) => {
      w.reader.remove(CELL, Kinds.servingLocation, LOCATION);
      await w.edit(
        HUB_CONTEXT,
        Kinds.cluster,
        CELL,
        undefined,
        (cluster) => void (cluster.metadata.labels = {}),
      );
    },
    hop: 'cluster',
    advice: advice.clusterNoLocation(CELL),
  },
  {
    title: 'two ServingLocations delivered',
    reason: ClaimReason.AmbiguousLocationIdentity,
    bound: false,
    arrange: async (w) =>
      void w.reader.put(CELL, Kinds.servingLocation, { metadata: { name: 'us-east-1' }, spec: {} }),
    hop: 'identity',
    advice: advice.ambiguousIdentity(CELL),
  },
  {
    title: 'a cell namespace without upstream labels',
    reason: ClaimReason.ProjectUnresolved,
    bound: false,
    arrange: (w) => w.edit(CELL, Kinds.namespace, HUB_NS, undefined, (ns) => void (ns.metadata.labels = {})),
    hop: 'cell-namespace',
    advice: advice.cellNamespaceUnlabelled(HUB_NS, CELL),
  },
  {
    title: 'a project namespace missing from the project plane',
    reason: ClaimReason.ProjectNamespaceNotFound,
    bound: false,
    arrange: async (w) => {
      w.reader.remove(PROJECT_PLANE, Kinds.namespace, 'default');
      await removeInterface(w);
    },
    hop: 'project-namespace',
    advice: advice.projectNamespaceMissing(PROJECT, 'default'),
  },
  {
    title: 'a context copy that has not reached the cell',
    reason: ClaimReason.NetworkNotAvailableInLocation,
    bound: false,
    arrange: async (w) => {
      w.reader.remove(CELL, Kinds.networkContext, CONTEXT, HUB_NS);
      await removeInterface(w);
    },
    hop: 'cell-context',
    advice: advice.cellCopyMissing(CELL, LOCATION),
    note: claimRefusalMessages.networkNotAvailable(NETWORK, LOCATION, CONTEXT, HUB_NS),
  },
  {
    title: 'a hub copy the replicator has not written',
    reason: ClaimReason.NetworkNotAvailableInLocation,
    bound: false,
    arrange: async (w) => {
      w.reader.remove(HUB_CONTEXT, Kinds.networkContext, CONTEXT, HUB_NS);
      w.reader.remove(CELL, Kinds.networkContext, CONTEXT, HUB_NS);
      await removeInterface(w);
    },
    hop: 'hub-context',
    advice: advice.copyMissing,
  },
  {
    title: 'no binding declaring the network in the location',
    reason: ClaimReason.NetworkNotAvailableInLocation,
    bound: false,
    arrange: async (w) => {
      w.reader.remove(HUB_CONTEXT, Kinds.networkBinding, 'web', HUB_NS);
      w.reader.remove(CELL, Kinds.networkContext, CONTEXT, HUB_NS);
      await removeInterface(w);
    },
    hop: 'binding',
    advice: advice.noBindingForPair(HUB_NS, NETWORK, LOCATION),
  },
  {
    title: 'a cell whose Cluster carries another location',
    reason: ClaimReason.NetworkNotAvailableInLocation,
    bound: false,
    arrange: async (w) => {
      await w.edit(HUB_CONTEXT, Kinds.cluster, CELL, undefined, (cluster) => {
        cluster.metadata.labels = { 'topology.datum.net/location': 'us-east-1' };
      });
      w.reader.remove(CELL, Kinds.networkContext, CONTEXT, HUB_NS);
      await removeInterface(w);
    },
    hop: 'cluster',
    advice: advice.clusterUnlabelled(CELL, LOCATION),
  },
  {
    title: 'a context stating no families',
    reason: ClaimReason.AddressFamiliesUnknown,
    bound: false,
    arrange: async (w) => {
      for (const [plane, namespace] of [
        [PROJECT_PLANE, 'default'],
        [HUB_CONTEXT, HUB_NS],
        [CELL, HUB_NS],
      ] as const)
        await w.edit(plane, Kinds.networkContext, CONTEXT, namespace, (context) => {
          delete (context.spec as Spec).ipFamilies;
        });
      await removeInterface(w);
    },
    hop: 'cell-context',
    advice: advice.familiesUnknown(CONTEXT),
    note: claimRefusalMessages.familiesUnknown(CONTEXT, NETWORK, LOCATION),
  },
  {
    title: 'a claim asking for IPv4 on an IPv6 network',
    reason: ClaimReason.AddressFamilyNotCarried,
    bound: false,
    arrange: async (w) => {
      await editClaim(w, (spec) => void (spec.ipFamilies = ['IPv4']));
      await removeInterface(w);
    },
    hop: 'network',
    advice: advice.familyNotCarried(PROJECT, 'default', NETWORK, 'IPv4'),
  },
  {
    title: 'an interface held by another claim',
    reason: ClaimReason.InterfaceHeldByAnotherClaim,
    bound: false,
    arrange: (w) => editInterface(w, (spec) => void (spec.claimRef = { name: 'web-1' })),
    hop: 'interface',
    advice: advice.interfaceHeld('web-1'),
    note: claimRefusalMessages.heldByAnotherClaim(CLAIM, 'web-1'),
  },
  {
    title: 'an interface on another network',
    reason: ClaimReason.NetworkMismatch,
    arrange: (w) => editInterface(w, (spec) => void (spec.network = { name: 'other' })),
    hop: 'interface',
    advice: advice.interfaceIncompatible(CLAIM),
    note: claimRefusalMessages.networkMismatch(CLAIM, 'other', NETWORK),
  },
  {
    title: 'an interface presenting another device name',
    reason: ClaimReason.InterfaceNameMismatch,
    arrange: (w) => editInterface(w, (spec) => void (spec.interfaceName = 'eth1')),
    hop: 'interface',
    advice: advice.interfaceIncompatible(CLAIM),
    note: claimRefusalMessages.interfaceNameMismatch(CLAIM, 'eth1', 'eth0'),
  },
  {
    title: 'an interface lacking a requested family',
    reason: ClaimReason.AddressFamilyMissing,
    arrange: (w) => editInterface(w, (spec) => void (spec.addresses = [])),
    hop: 'interface',
    advice: advice.interfaceIncompatible(CLAIM),
    note: claimRefusalMessages.familyMissing(CLAIM, 'IPv6'),
  },
  {
    title: 'an interface lacking a requested class',
    reason: ClaimReason.AddressClassMissing,
    arrange: (w) => editClaim(w, (spec) => void (spec.addresses = [{ class: 'datum-public-v4' }])),
    hop: 'interface',
    advice: advice.interfaceIncompatible(CLAIM),
    note: claimRefusalMessages.classMissing(CLAIM, 'datum-public-v4'),
  },
  {
    title: 'an interface allocated under the other reclaim policy',
    reason: ClaimReason.ReclaimPolicyMismatch,
    arrange: (w) => editInterface(w, (spec) => void (spec.reclaimPolicy = 'Retain')),
    hop: 'interface',
    advice: advice.interfaceIncompatible(CLAIM),
    note: claimRefusalMessages.reclaimPolicyMismatch(CLAIM, 'Retain', 'Delete'),
  },
  {
    title: 'a Subnet whose start is no address',
    reason: ClaimReason.SubnetGatewayUnusable,
    arrange: (w) => subnetEverywhere(w, (spec) => void (spec.startAddress = 'nowhere')),
    hop: 'cell-subnet',
    advice: advice.gateway(SUBNET),
    note: gatewayMessages.noStartAddress(SUBNET, 'IPv6'),
  },
  ...[
    ClaimReason.AddressPoolExhausted,
    ClaimReason.RetainedAddressConflict,
    ClaimReason.AddressAllocationRejected,
    ClaimReason.AllocationFailed,
  ].map((reason): RefusalCase => ({
    title: 'IPAM refusing the allocation',
    reason,
    bound: false,
    arrange: removeInterface,
    hop: 'addresses',
    advice: ipamAdvice(reason, PROJECT),
  })),
];

describe('traceClaim', () => {
  it('a bound claim waiting only for the data plane has no verdict and exits 0', async () => {
    const { hops, verdict: found, exit } = await trace(new TestWorld());
    assert.equal(found, undefined, JSON.stringify(hops.filter((hop) => hop.state !== 'ok')));
    assert.equal(exit, 0);
    assert.deepEqual(
      hops.map((hop) => hop.id),
      [
        'binding',
        'hub-namespace',
        'project',
        'project-namespace',
        'location-binding',
        'network',
        'project-context',
        'project-subnet',
        'hub-context',
        'hub-subnet',
        'policy',
        'cluster',
        'identity',
        'cell-namespace',
        'cell-context',
        'cell-subnet',
        'addresses',
        'interface',
        'claim',
        'interface-hub-copy',
        'interface-project-copy',
      ],
    );
    assert.match(hops.find((hop) => hop.id === 'claim')!.note!, /NotPrepared: waiting for the data plane/);
  });

  for (const refusal of refusals) {
    it(`${refusal.reason} from ${refusal.title} names the ${refusal.hop} hop`, async () => {
      const world = new TestWorld();
      await refusal.arrange(world);
      await world.claimRefuses(refusal.reason, refusal.bound ?? true);
      const { verdict: found, exit } = await trace(world);
      assert.equal(found?.hop.id, refusal.hop, JSON.stringify(found));
      assert.equal(found?.hop.advice, refusal.advice);
      if (refusal.note) assert.equal(found?.hop.note, refusal.note);
      assert.equal(exit, 1);
    });
  }

  it('every claim refusal reason has a case naming its hop', () => {
    const refusalReasons = [
      ClaimReason.NoLocationIdentity,
      ClaimReason.AmbiguousLocationIdentity,
      ClaimReason.ProjectUnresolved,
      ClaimReason.ProjectNamespaceNotFound,
      ClaimReason.NetworkNotAvailableInLocation,
      ClaimReason.AddressFamiliesUnknown,
      ClaimReason.AddressFamilyNotCarried,
      ClaimReason.InterfaceHeldByAnotherClaim,
      ClaimReason.NetworkMismatch,
      ClaimReason.InterfaceNameMismatch,
      ClaimReason.AddressFamilyMissing,
      ClaimReason.AddressClassMissing,
      ClaimReason.ReclaimPolicyMismatch,
      ClaimReason.SubnetGatewayUnusable,
      ClaimReason.AddressPoolExhausted,
      ClaimReason.RetainedAddressConflict,
      ClaimReason.AddressAllocationRejected,
      ClaimReason.AllocationFailed,
    ];
    const notRefusals = [
      'Pending',
      'Bound',
      'Allocated',
      'AddressAllocationMissing',
      'Ready',
      'NotBound',
      'NotAllocated',
      'NotPrepared',
      'NotProgrammed',
    ];
    assert.deepEqual(
      new Set(refusalReasons),
      new Set(Object.values(ClaimReason).filter((reason) => !notRefusals.includes(reason))),
    );
    assert.deepEqual(new Set(refusals.map((refusal) => refusal.reason)), new Set(refusalReasons));
  });

  it('an address whose IPAM allocation is gone names the addresses hop', async () => {
    const world = new TestWorld();
    world.reader.remove(PROJECT_PLANE, Kinds.ipClaim, `${CLAIM}.${CELL}-f-ipv6`, 'default');
    await world.edit(CELL, Kinds.networkInterfaceClaim, CLAIM, HUB_NS, (claim) => {
      claim.status = {
        networkInterfaceRef: { name: CLAIM },
        conditions: [
          condition('Bound', 'True', 'Bound'),
          condition('Allocated', 'False', 'AddressAllocationMissing'),
          condition('Ready', 'False', 'NotAllocated'),
        ],
      };
    });
    const { verdict: found } = await trace(world);
    assert.equal(found?.hop.id, 'addresses');
    assert.equal(found?.hop.note, `Address fd20::1:0:0/96 is held by no allocation in project "${PROJECT}"`);
    assert.equal(found?.hop.advice, advice.addressAllocationMissing(CLAIM));
  });

  it('a Pending claim with no interface yet names the claim controller of the cell', async () => {
    const world = new TestWorld();
    await removeInterface(world);
    await world.edit(CELL, Kinds.networkInterfaceClaim, CLAIM, HUB_NS, (claim) => {
      claim.status = { conditions: [condition('Ready', 'Unknown', 'Pending')] };
    });
    const { verdict: found } = await trace(world);
    assert.equal(found?.hop.id, 'addresses');
    assert.equal(found?.hop.advice, advice.addressesWaiting(CELL));
  });

  it('a cell with a configured location and no ServingLocation is not faulted for it', async () => {
    const world = new TestWorld();
    world.reader.remove(CELL, Kinds.servingLocation, LOCATION);
    const { verdict: found, hops } = await trace(world);
    assert.equal(found, undefined);
    assert.equal(hops.find((hop) => hop.id === 'identity')?.state, 'ok');
  });

  it('a missing claim is the only hop', async () => {
    const world = new TestWorld();
    world.reader.remove(CELL, Kinds.networkInterfaceClaim, CLAIM, HUB_NS);
    const { hops, verdict: found } = await trace(world);
    assert.equal(hops.length, 1);
    assert.equal(found?.hop.advice, advice.claimMissing(CELL, HUB_NS, CLAIM));
  });

  it('an unreadable cell plane is named', async () => {
    const world = new TestWorld();
    world.reader.cutOff(CELL);
    const { verdict: found } = await trace(world);
    assert.equal(found?.hop.state, 'unreachable');
    assert.equal(found?.hop.advice, advice.planeUnreadable(CELL));
  });
  it('a missing hub copy is waiting, names the write-back, and leaves the claim ok', async () => {
    const world = new TestWorld();
    world.reader.remove(HUB_CONTEXT, Kinds.networkInterface, `${CLAIM}.${CELL}`, HUB_NS);
    const { hops, verdict: found } = await trace(world);
    const claim = hops.find((hop) => hop.id === 'claim')!;
    assert.equal(claim.state, 'ok');
    assert.equal(found?.hop.id, 'interface-hub-copy');
    assert.equal(found?.hop.state, 'waiting');
    assert.equal(found?.hop.advice, copyAdvice.hubCopyWaiting(CELL, HUB_NS));
  });

  it('a missing project copy is waiting and names the projector', async () => {
    const world = new TestWorld();
    world.reader.remove(PROJECT_PLANE, Kinds.networkInterface, `${CLAIM}.${CELL}`, 'default');
    const { verdict: found } = await trace(world);
    assert.equal(found?.hop.id, 'interface-project-copy');
    assert.equal(found?.hop.state, 'waiting');
    assert.equal(found?.hop.plane, PROJECT_PLANE);
    assert.equal(found?.hop.advice, copyAdvice.projectCopyWaiting(PROJECT, NETWORK));
  });

  it('a refusing claim stays the verdict while its copies are missing', async () => {
    const world = new TestWorld();
    world.reader.remove(HUB_CONTEXT, Kinds.networkInterface, `${CLAIM}.${CELL}`, HUB_NS);
    world.reader.remove(PROJECT_PLANE, Kinds.networkInterface, `${CLAIM}.${CELL}`, 'default');
    await world.claimRefuses(ClaimReason.NotAllocated);
    const { verdict: found } = await trace(world);
    assert.notEqual(found?.hop.id, 'interface-hub-copy');
    assert.notEqual(found?.hop.id, 'interface-project-copy');
  });
});
