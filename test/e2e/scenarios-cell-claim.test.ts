/**
 * Claim controller scenarios (scenarios.md §10, S78–S98) on fixture K: the cell controllers alone
 * against the embedded API server, with project-alpha's IPAM reached at the Milo path.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { isDnsSubdomain } from '../../src/apis/common/names.ts';
import type { NetworkInterface } from '../../src/apis/networking/v1alpha/network-interface.ts';
import type { Subnet } from '../../src/apis/networking/v1alpha/subnet.ts';
import { addressClaimName } from '../../src/apis/ipam/v1alpha1/ip-claim.ts';
import { cellView } from '../../src/controllers/cell/cell-context.ts';
import { claimController, claimsOfContext } from '../../src/controllers/cell/claim.ts';
import { contextHoldController } from '../../src/controllers/cell/context-hold.ts';
import { locationIdentityController } from '../../src/controllers/cell/location-identity.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { NETWORK_BINDINGS } from '../support/hub-fixtures.ts';
import { writeCondition } from '../support/project-fixtures.ts';
import {
  CELL_A,
  contextSpec,
  createContext,
  deliverServingLocation,
  metricValue,
  reconcileClaimAgain,
  reconcileCount,
  settle,
  ALPHA,
  bound,
  C,
  claimCondition,
  conditionOf,
  createClaim,
  ipClaimNames,
  startFixtureK,
  until,
  WITHIN,
  type CellScenario,
} from '../support/cell-fixtures.ts';

let k: CellScenario | undefined;
afterEach(async () => {
  await k?.stop();
  k = undefined;
});

/** Scenario 78's claim, bound. */
async function dualStackBound(
  fixture: CellScenario,
  name = 'web-0-eth0',
  reclaimPolicy?: 'Delete' | 'Retain',
) {
  await createClaim(fixture, name, {
    ipFamilies: ['IPv6', 'IPv4'],
    addresses: [{ class: 'datum-public-v4' }],
    ...(reclaimPolicy && { reclaimPolicy }),
  });
  return bound(fixture, name);
}

describe('claim controller (fixture K)', () => {
  it('S78 dual stack with a public address', async () => {
    k = await startFixtureK();
    await createClaim(k, 'web-0-eth0', {
      ipFamilies: ['IPv6', 'IPv4'],
      addresses: [{ class: 'datum-public-v4' }],
    });
    const claim = await claimCondition(k, 'web-0-eth0', 'Ready', 'NotPrepared', 'Unknown');
    const iface = (await k.interfaces.get('web-0-eth0', k.H))!;
    assert.equal(iface.metadata.annotations?.['networking.datumapis.com/allocation-claim'], 'web-0-eth0');
    assert.deepEqual(iface.metadata.finalizers, ['networking.datumapis.com/networkinterface-release']);
    assert.deepEqual(
      {
        network: iface.spec.network,
        claimRef: iface.spec.claimRef,
        interfaceName: iface.spec.interfaceName,
        attachmentMode: iface.spec.attachmentMode,
        mtu: iface.spec.mtu,
        reclaimPolicy: iface.spec.reclaimPolicy,
      },
      {
        network: { name: 'vpc' },
        claimRef: { name: 'web-0-eth0' },
        interfaceName: 'eth0',
        attachmentMode: 'Netns',
        mtu: 1460,
        reclaimPolicy: 'Delete',
      },
    );
    assert.deepEqual(iface.spec.addresses, [
      { family: 'IPv6', address: 'fd20::1:0:0/96', gateway: 'fd20::1', primary: true, class: '' },
      { family: 'IPv4', address: '10.128.0.1/32', primary: false, class: '' },
    ]);
    assert.deepEqual(iface.spec.externalAddresses, [
      { family: 'IPv4', address: '203.0.113.1', class: 'datum-public-v4' },
    ]);
    assert.equal(iface.status?.phase, 'Bound');
    assert.deepEqual(iface.status?.networkContextRef, { name: C });
    assert.equal(conditionOf(iface, 'Allocated')?.status, 'True');
    for (const type of ['Prepared', 'Programmed']) {
      assert.equal(conditionOf(iface, type)?.status, 'Unknown');
      assert.equal(conditionOf(iface, type)?.reason, 'Pending');
    }
    const ipClaims = await Promise.all(
      ['web-0-eth0.cell-a-f-ipv6', 'web-0-eth0.cell-a-f-ipv4', 'web-0-eth0.cell-a-c-datum-public-v4'].map(
        (n) => k!.ipClaims.get(n, 'default'),
      ),
    );
    for (const ipClaim of ipClaims) {
      assert.ok(ipClaim, 'IPClaim exists');
      assert.deepEqual(ipClaim.spec.scope, {
        network: { apiGroup: 'networking.datumapis.com', kind: 'Network', name: 'vpc' },
        location: { apiGroup: 'networking.datumapis.com', kind: 'Location', name: 'us-central-1' },
      });
    }
    assert.deepEqual(claim.status?.addresses, iface.spec.addresses);
    assert.deepEqual(claim.status?.externalAddresses, iface.spec.externalAddresses);
    assert.deepEqual(claim.status?.networkInterfaceRef, { name: 'web-0-eth0' });
    assert.equal(conditionOf(claim, 'Bound')?.status, 'True');
    assert.equal(conditionOf(claim, 'Bound')?.message, 'Bound to network interface "web-0-eth0"');
    assert.equal(conditionOf(claim, 'Allocated')?.status, 'True');
    assert.equal(conditionOf(claim, 'Ready')?.message, 'Waiting for Prepared');
    await until(
      async () =>
        (await k!.contexts.get(C, k!.H))?.metadata.finalizers?.includes(
          'networking.datumapis.com/networkcontext-in-use',
        ) ?? false,
      WITHIN,
      'C to carry networkcontext-in-use',
    );
  });

  it('S79 a claim in a namespace naming no project is refused before IPAM is asked', async () => {
    k = await startFixtureK();
    await k.namespaces.create({ metadata: { name: 'plain' } });
    await createContext(k, C, contextSpec(), 'plain');
    await createClaim(k, 'lost-eth0', {}, 'plain');
    const claim = await claimCondition(k, 'lost-eth0', 'Ready', 'ProjectUnresolved', 'False', 'plain');
    for (const type of ['Bound', 'Allocated']) {
      assert.equal(conditionOf(claim, type)?.status, 'False');
      assert.equal(conditionOf(claim, type)?.reason, 'ProjectUnresolved');
    }
    assert.match(conditionOf(claim, 'Ready')!.message, /meta\.datumapis\.com\/upstream-cluster-name/);
    assert.deepEqual(
      (await ipClaimNames(k)).filter((n) => n.startsWith('lost-eth0')),
      [],
    );
    await k.claims.delete('lost-eth0', 'plain');
    await until(async () => !(await k!.claims.get('lost-eth0', 'plain')), WITHIN, 'the claim to go');

    await createClaim(k, 'later-eth0', {}, 'plain');
    await claimCondition(k, 'later-eth0', 'Ready', 'ProjectUnresolved', 'False', 'plain');
    await k.namespaces.patchMerge('plain', undefined, {
      metadata: {
        labels: {
          'meta.datumapis.com/upstream-cluster-name': 'cluster-project-alpha',
          'meta.datumapis.com/upstream-namespace': 'default',
        },
      },
    });
    await bound(k, 'later-eth0', 'plain');
  });

  it('S80 a claim in a namespace naming no project namespace is refused ProjectNamespaceNotFound, leaving nothing in IPAM', async () => {
    const clock = new FakeClock(Date.parse('2026-12-02T00:00:00Z'));
    k = await startFixtureK({ clock });
    await k.namespaces.create({
      metadata: {
        name: 'ghostly',
        labels: {
          'meta.datumapis.com/upstream-cluster-name': 'cluster-project-alpha',
          'meta.datumapis.com/upstream-namespace': 'ghost',
        },
      },
    });
    await createContext(k, C, contextSpec(), 'ghostly');
    const before = await ipClaimNames(k);
    await createClaim(k, 'ghost-eth0', {}, 'ghostly');
    const claim = await claimCondition(
      k,
      'ghost-eth0',
      'Ready',
      'ProjectNamespaceNotFound',
      'False',
      'ghostly',
    );
    const message =
      'Project "project-alpha" has no namespace "ghost" in its control plane, so no address can be allocated for it';
    for (const type of ['Bound', 'Allocated', 'Ready']) {
      assert.equal(conditionOf(claim, type)?.reason, 'ProjectNamespaceNotFound');
      assert.equal(conditionOf(claim, type)?.message, message);
    }
    assert.equal(await k.interfaces.get('ghost-eth0', 'ghostly'), undefined);
    assert.deepEqual(await ipClaimNames(k), before);
    await settle(k, 'claim');
    const reconciles = await reconcileCount(k, 'claim');
    await clock.advance(59_000);
    await settle(k, 'claim');
    assert.equal(await reconcileCount(k, 'claim'), reconciles, 'nothing before the backstop');
    await clock.advance(1_000);
    await until(async () => (await reconcileCount(k!, 'claim')) > reconciles, WITHIN, 'the 60 s backstop');
  });

  it('S81 families checked before IPAM', async () => {
    k = await startFixtureK({ context: { ipFamilies: ['IPv4'] } });
    const before = await ipClaimNames(k);
    await createClaim(k, 'v6-eth0');
    const refused = await claimCondition(k, 'v6-eth0', 'Allocated', 'AddressFamilyNotCarried', 'False');
    assert.equal(
      conditionOf(refused, 'Allocated')?.message,
      'Network "vpc" in location "us-central-1" does not carry address family IPv6',
    );
    await k.contexts.patchMerge(C, k.H, { spec: { ipFamilies: null } });
    await createClaim(k, 'any-eth0');
    const unknown = await claimCondition(k, 'any-eth0', 'Ready', 'AddressFamiliesUnknown', 'False');
    assert.equal(
      conditionOf(unknown, 'Ready')?.message,
      'Network context "vpc-us-central-1" states no address families, so what network "vpc" carries in location "us-central-1" is unknown here',
    );
    assert.deepEqual(await ipClaimNames(k), before);
  });

  it('S82 context arrives, and only its claims wake', async () => {
    k = await startFixtureK({ context: false });
    await createClaim(k, 'web-0-eth0');
    const waiting = await claimCondition(k, 'web-0-eth0', 'Ready', 'NetworkNotAvailableInLocation', 'False');
    assert.equal(
      conditionOf(waiting, 'Ready')?.message,
      `Network "vpc" has not reached location "us-central-1": no network context "vpc-us-central-1" exists in namespace "${k.H}"`,
    );
    await createContext(k, C, contextSpec());
    await bound(k, 'web-0-eth0');

    await createClaim(k, 'db-0-eth0', { network: { name: 'db' } });
    await createClaim(k, 'db-1-eth0', { network: { name: 'db' } });
    const claims = cellView(k.cell!.ctx).claims.store;
    await until(() => claims.list(k!.H).length === 3, WITHIN, 'the claims to be in the store');
    const keys = claimsOfContext(claims)({
      type: 'ADDED',
      object: {
        metadata: { name: 'db-us-central-1', namespace: k.H },
        spec: { network: { name: 'db' }, location: { name: 'us-central-1' } },
      },
    });
    assert.deepEqual(keys.sort(), [`${k.H}/db-0-eth0`, `${k.H}/db-1-eth0`]);
  });

  it('S83 a dual-stack claim one family of which cannot be allocated keeps neither address', async () => {
    k = await startFixtureK();
    await k.ipPools.delete('datum-endpoint-v4-root');
    await k.ipPools.create({
      metadata: { name: 'datum-endpoint-v4-root' },
      spec: { className: 'datum-endpoint-v4', cidr: '10.128.0.0/32' },
    });
    const seen: string[] = [];
    const start = await k.ipClaims.list({ namespace: 'default' });
    const watch = await k.ipClaims.watch(
      { namespace: 'default', resourceVersion: start.resourceVersion },
      (type, object) => {
        if (type !== 'ERROR' && object.metadata.name === 'half-eth0.cell-a-f-ipv6') seen.push(type);
      },
      () => undefined,
    );
    try {
      await createClaim(k, 'half-eth0', { ipFamilies: ['IPv6', 'IPv4'] });
      const refused = await claimCondition(k, 'half-eth0', 'Allocated', 'AddressPoolExhausted', 'False');
      assert.equal(
        conditionOf(refused, 'Allocated')?.message,
        'No address is left for an IPv4 address: IPPool "datum-endpoint-v4-root" is exhausted',
      );
      assert.equal(await k.interfaces.get('half-eth0', k.H), undefined);
      await until(() => seen.includes('DELETED'), WITHIN, 'half-eth0-f-ipv6 to be rolled back');
      assert.deepEqual(seen, ['ADDED', 'DELETED']);
      assert.equal(await k.ipClaims.get('half-eth0.cell-a-f-ipv6', 'default'), undefined);
    } finally {
      watch.abort();
    }
    await createClaim(k, 'next-eth0');
    await bound(k, 'next-eth0');
    assert.equal((await k.interfaces.get('next-eth0', k.H))?.spec.addresses?.[0].address, 'fd20::1:0:0/96');
  });

  it('S84 retain rebinds the same addresses', async () => {
    k = await startFixtureK();
    await retainedKeep(k);
    const before = await ipClaimNames(k);
    await createClaim(k, 'keep-eth0', { reclaimPolicy: 'Retain' });
    const rebound = await bound(k, 'keep-eth0');
    const iface = (await k.interfaces.get('keep-eth0', k.H))!;
    assert.equal(iface.spec.claimRef?.name, 'keep-eth0');
    assert.equal(iface.spec.addresses?.[0].address, 'fd20::1:0:0/96');
    assert.equal(rebound.status?.addresses?.[0].address, 'fd20::1:0:0/96');
    assert.deepEqual(await ipClaimNames(k), before);
  });

  it('S85 deleting a claim removes its interface and releases its addresses', async () => {
    k = await startFixtureK();
    await dualStackBound(k);
    await k.claims.delete('web-0-eth0', k.H);
    const names = [
      'web-0-eth0.cell-a-f-ipv6',
      'web-0-eth0.cell-a-f-ipv4',
      'web-0-eth0.cell-a-c-datum-public-v4',
    ];
    await until(
      async () => {
        const left = await Promise.all([
          k!.interfaces.get('web-0-eth0', k!.H),
          ...names.map((n) => k!.ipClaims.get(n, 'default')),
          ...names.map((n) => k!.ipAllocations.get(n, 'default')),
        ]);
        return left.every((o) => o === undefined);
      },
      WITHIN,
      'the interface, IPClaims and IPAllocations to go',
    );
  });

  it('S86 a lost interface is rebuilt', async () => {
    k = await startFixtureK({
      controllers: [locationIdentityController, claimController, contextHoldController],
    });
    await dualStackBound(k);
    const before = (await k.interfaces.get('web-0-eth0', k.H))!;
    const ipClaimsBefore = await ipClaimUids(k);
    await k.interfaces.patchMerge('web-0-eth0', k.H, { metadata: { finalizers: null } });
    await k.interfaces.delete('web-0-eth0', k.H);
    const rebuilt = await until(
      async () => {
        const iface = await k!.interfaces.get('web-0-eth0', k!.H);
        return iface !== undefined && iface.metadata.uid !== before.metadata.uid;
      },
      WITHIN,
      'the interface to be rebuilt',
    ).then(() => k!.interfaces.get('web-0-eth0', k!.H));
    assert.deepEqual(
      rebuilt!.spec.addresses?.map((a) => a.address),
      before.spec.addresses?.map((a) => a.address),
    );
    assert.deepEqual(rebuilt!.spec.externalAddresses, before.spec.externalAddresses);
    assert.deepEqual(await ipClaimUids(k), ipClaimsBefore);
    await claimCondition(k, 'web-0-eth0', 'Allocated', 'Allocated', 'True');
  });

  it('S87 a retained interface is adopted only by a claim matching its network, name, families, class and reclaim policy', async () => {
    k = await startFixtureK();
    await createContext(k, 'other-us-central-1', contextSpec({ network: { name: 'other' } }));
    await createClaim(k, 'adopt-eth0', { reclaimPolicy: 'Retain' });
    await bound(k, 'adopt-eth0');
    await k.claims.delete('adopt-eth0', k.H);
    await until(async () => !(await k!.claims.get('adopt-eth0', k!.H)), WITHIN, 'the claim to go');
    await until(
      async () => (await k!.interfaces.get('adopt-eth0', k!.H))?.status?.phase === 'Available',
      WITHIN,
      'the interface to be Available',
    );
    const retained = (await k.interfaces.get('adopt-eth0', k.H))!;
    const ipClaims = await ipClaimNames(k);
    const variants: Array<[Record<string, unknown>, string, RegExp?]> = [
      [{ network: { name: 'other' } }, 'NetworkMismatch'],
      [{ interfaceName: 'eth1' }, 'InterfaceNameMismatch'],
      [{ ipFamilies: ['IPv6', 'IPv4'] }, 'AddressFamilyMissing', /IPv4/],
      [{ addresses: [{ class: 'datum-public-v4' }] }, 'AddressClassMissing'],
      [{ reclaimPolicy: 'Delete' }, 'ReclaimPolicyMismatch', /Retain/],
    ];
    for (const [variant, reason, message] of variants) {
      await createClaim(k, 'adopt-eth0', { reclaimPolicy: 'Retain', ...variant });
      const refused = await claimCondition(k, 'adopt-eth0', 'Ready', reason, 'False');
      if (message) assert.match(conditionOf(refused, 'Ready')!.message, message);
      assert.equal(refused.status?.addresses, undefined, `${reason}: no addresses published`);
      assert.deepEqual(await ipClaimNames(k), ipClaims, `${reason}: no IPClaim created`);
      const iface: NetworkInterface = (await k.interfaces.get('adopt-eth0', k.H))!;
      assert.equal(iface.spec.claimRef, undefined, `${reason}: the interface stays unbound`);
      assert.deepEqual(iface.spec, retained.spec, `${reason}: the interface is unchanged`);
      await k.claims.delete('adopt-eth0', k.H);
      await until(async () => !(await k!.claims.get('adopt-eth0', k!.H)), WITHIN, 'the claim to go');
    }
  });

  it('S88 held by another claim', async () => {
    k = await startFixtureK();
    await createClaim(k, 'a', { networkInterfaceName: 'shared' });
    await bound(k, 'a');
    await createClaim(k, 'b', { networkInterfaceName: 'shared' });
    const refused = await claimCondition(k, 'b', 'Ready', 'InterfaceHeldByAnotherClaim', 'False');
    assert.equal(conditionOf(refused, 'Ready')?.message, 'Network interface "shared" is held by claim "a"');
  });

  it('S89 allocations follow the minting claim', async () => {
    k = await startFixtureK();
    await createClaim(k, 'minter', { reclaimPolicy: 'Retain', networkInterfaceName: 'shared' });
    await bound(k, 'minter');
    await k.claims.delete('minter', k.H);
    await until(async () => !(await k!.claims.get('minter', k!.H)), WITHIN, 'minter to go');
    await createClaim(k, 'adopter', { reclaimPolicy: 'Retain', networkInterfaceName: 'shared' });
    await bound(k, 'adopter');
    const shared = (await k.interfaces.get('shared', k.H))!;
    assert.equal(shared.metadata.annotations?.['networking.datumapis.com/allocation-claim'], 'minter');
    assert.equal(shared.spec.claimRef?.name, 'adopter');
    assert.deepEqual(
      (await ipClaimNames(k)).filter((n) => n.startsWith('adopter')),
      [],
    );
    await k.claims.delete('adopter', k.H);
    await until(async () => !(await k!.claims.get('adopter', k!.H)), WITHIN, 'adopter to go');
    await until(
      async () => (await k!.interfaces.get('shared', k!.H))?.spec.claimRef === undefined,
      WITHIN,
      'shared to be unbound',
    );
    assert.ok(
      await k.ipAllocations.get('minter.cell-a-f-ipv6', 'default'),
      'the allocation is retained meanwhile',
    );
    await k.interfaces.delete('shared', k.H);
    await until(
      async () =>
        !(await k!.interfaces.get('shared', k!.H)) &&
        !(await k!.ipClaims.get('minter.cell-a-f-ipv6', 'default')) &&
        !(await k!.ipAllocations.get('minter.cell-a-f-ipv6', 'default')),
      WITHIN,
      'shared, minter-f-ipv6 and its IPAllocation to go',
    );
  });

  it('S90 a missing allocation is reported, never repaired', async () => {
    k = await startFixtureK();
    await createClaim(k, 'unbacked');
    await bound(k, 'unbacked');
    const counter = 'netpresence_network_interface_missing_allocations_total';
    const counted = await metricValue(k, counter, { project: ALPHA });
    await k.ipClaims.delete('unbacked.cell-a-f-ipv6', 'default');
    await reconcileClaimAgain(k, 'unbacked');
    await reconcileClaimAgain(k, 'unbacked');
    const claim = (await k.claims.get('unbacked', k.H))!;
    assert.equal(conditionOf(claim, 'Allocated')?.status, 'False');
    assert.equal(conditionOf(claim, 'Allocated')?.reason, 'AddressAllocationMissing');
    assert.equal(
      conditionOf(claim, 'Allocated')?.message,
      'Address fd20::1:0:0/96 is held by no allocation in project "project-alpha"',
    );
    assert.equal(conditionOf(claim, 'Ready')?.status, 'False');
    assert.equal(conditionOf(claim, 'Ready')?.reason, 'NotAllocated');
    assert.equal(conditionOf(claim, 'Bound')?.status, 'True');
    assert.equal((await k.interfaces.get('unbacked', k.H))?.spec.addresses?.[0].address, 'fd20::1:0:0/96');
    assert.equal(await k.ipClaims.get('unbacked.cell-a-f-ipv6', 'default'), undefined);
    const events = (await k.events.list({ namespace: k.H })).items.filter(
      (e) => e.reason === 'AddressAllocationMissing',
    );
    assert.equal(events.length, 1);
    const [event] = events as Array<Record<string, any>>;
    assert.equal(event.type, 'Warning');
    assert.equal(event.action, 'VerifyAllocation');
    assert.equal(event.regarding.kind, 'NetworkInterfaceClaim');
    assert.equal(event.regarding.name, 'unbacked');
    assert.equal(event.related.kind, 'NetworkInterface');
    assert.equal(event.related.name, 'unbacked');
    assert.match(event.note, /fd20::1:0:0\/96/);
    assert.match(event.note, /unbacked.cell-a-f-ipv6/);
    assert.match(event.note, /project-alpha/);
    assert.equal(await metricValue(k, counter, { project: ALPHA }), counted + 1);
  });

  it('S91 MTU comes from the context and follows it', async () => {
    k = await startFixtureK({ context: { mtu: 1500 } });
    await createClaim(k, 'mtu-eth0');
    await bound(k, 'mtu-eth0');
    const before = (await k.interfaces.get('mtu-eth0', k.H))!;
    assert.equal(before.spec.mtu, 1500);
    await k.contexts.patchMerge(C, k.H, { spec: { mtu: 8856 } });
    await until(
      async () => (await k!.interfaces.get('mtu-eth0', k!.H))?.spec.mtu === 8856,
      WITHIN,
      'mtu 8856',
    );
    const after = (await k.interfaces.get('mtu-eth0', k.H))!;
    assert.deepEqual({ ...after.spec, mtu: 1500 }, before.spec);
  });

  it('S92 the gateway arrives with the subnet', async () => {
    k = await startFixtureK();
    await createClaim(k, 'v4-eth0', { ipFamilies: ['IPv4'] });
    await bound(k, 'v4-eth0');
    const before = (await k.interfaces.get('v4-eth0', k.H))!;
    assert.equal(before.spec.addresses?.[0].address, '10.128.0.1/32');
    assert.ok(!before.spec.addresses?.[0].gateway);
    await k.subnets.create(v4Subnet(k, 'vpc-v4', '10.128.0.0', 24));
    await until(
      async () =>
        (await k!.interfaces.get('v4-eth0', k!.H))?.spec.addresses?.[0].gateway === '10.128.0.1' &&
        (await k!.claims.get('v4-eth0', k!.H))?.status?.addresses?.[0].gateway === '10.128.0.1',
      WITHIN,
      'the interface and the claim to show gateway 10.128.0.1',
    );
    const settled = (await k.interfaces.get('v4-eth0', k.H))!;
    await reconcileClaimAgain(k, 'v4-eth0');
    assert.equal(
      (await k.interfaces.get('v4-eth0', k.H))?.metadata.resourceVersion,
      settled.metadata.resourceVersion,
    );
  });

  it('S93 a Subnet that yields no usable gateway refuses the IPv4 claim', async () => {
    k = await startFixtureK();
    await createClaim(k, 'v4-eth0', { ipFamilies: ['IPv4'] });
    await bound(k, 'v4-eth0');
    const cases: Array<[string, number, string?]> = [
      ['not-an-address', 24],
      ['2001:db8::', 24],
      ['10.128.0.7', 32],
      ['255.255.255.255', 24],
      ['10.128.0.0/24', 24],
      ['10.128.0.0', 24, ''],
    ];
    for (const [index, [start, prefixLength, statusStart]] of cases.entries()) {
      const name = `vpc-v4-${index}`;
      await k.subnets.create(v4Subnet(k, name, start, prefixLength));
      if (statusStart !== undefined)
        await k.subnets.patchMerge(
          name,
          k.H,
          { status: { startAddress: statusStart } },
          { subresource: 'status' },
        );
      const claim = await claimCondition(k, 'v4-eth0', 'Ready', 'SubnetGatewayUnusable', 'False');
      assert.match(conditionOf(claim, 'Ready')!.message, new RegExp(`^Subnet "${name}" `));
      assert.equal(conditionOf(claim, 'Bound')?.status, 'True');
      assert.equal(conditionOf(claim, 'Allocated')?.status, 'True');
      assert.ok(
        !(await k.interfaces.get('v4-eth0', k.H))?.spec.addresses?.[0].gateway,
        `${name}: gateway unchanged`,
      );
      if (index === cases.length - 1) {
        await k.contexts.patchMerge(C, k.H, { spec: { mtu: 1500 } });
        await until(
          async () => (await k!.interfaces.get('v4-eth0', k!.H))?.spec.mtu === 1500,
          WITHIN,
          'mtu 1500',
        );
      }
      await k.subnets.delete(name, k.H);
      await claimCondition(k, 'v4-eth0', 'Ready', 'NotPrepared', 'Unknown');
    }
  });

  it("S94 the interface takes the claim's attachment mode, Netns by default", async () => {
    k = await startFixtureK();
    await createClaim(k, 'hv-eth0', { attachmentMode: 'Hypervisor' });
    await createClaim(k, 'ns-eth0');
    await bound(k, 'hv-eth0');
    await bound(k, 'ns-eth0');
    assert.equal((await k.interfaces.get('hv-eth0', k.H))?.spec.attachmentMode, 'Hypervisor');
    assert.equal((await k.interfaces.get('ns-eth0', k.H))?.spec.attachmentMode, 'Netns');
  });

  it("S95 the claim's Ready follows the data plane's Prepared and Programmed", async () => {
    k = await startFixtureK();
    await dualStackBound(k, 'web-0-eth0', 'Retain');
    const name = 'web-0-eth0';
    await writeCondition(k.interfaces, name, k.H, 'Prepared', 'True', 'Prepared');
    await writeCondition(k.claims, name, k.H, 'Prepared', 'True', 'Prepared');
    await claimCondition(k, name, 'Ready', 'NotProgrammed', 'Unknown');
    await writeCondition(k.interfaces, name, k.H, 'Programmed', 'True', 'Programmed');
    await k.interfaces.patchMerge(
      name,
      k.H,
      {
        status: {
          vpc: 'vpc-1234',
          attachmentRef: { apiGroup: 'compute.datumapis.com', kind: 'Instance', name: 'web-0' },
        },
      },
      { subresource: 'status' },
    );
    await writeCondition(k.claims, name, k.H, 'Programmed', 'True', 'Programmed');
    const ready = await claimCondition(k, name, 'Ready', 'Ready', 'True');
    assert.equal(
      conditionOf(ready, 'Ready')?.message,
      'The interface is bound, addressed, prepared, and programmed',
    );
    const survives = async (when: string) => {
      const iface = (await k!.interfaces.get(name, k!.H))!;
      assert.equal(iface.status?.vpc, 'vpc-1234', when);
      assert.equal(iface.status?.attachmentRef?.name, 'web-0', when);
      assert.equal(conditionOf(iface, 'Programmed')?.status, 'True', when);
      assert.equal(conditionOf(iface, 'Prepared')?.status, 'True', when);
    };
    await reconcileClaimAgain(k, name);
    await survives('after a reconcile');
    await k.claims.delete(name, k.H);
    await until(
      async () => (await k!.interfaces.get(name, k!.H))?.status?.phase === 'Available',
      WITHIN,
      'Available',
    );
    await survives('after a Retain release');
    await dualStackBound(k, name, 'Retain');
    await until(
      async () => (await k!.interfaces.get(name, k!.H))?.status?.phase === 'Bound',
      WITHIN,
      'rebound',
    );
    await survives('after a rebind');
    await writeCondition(k.claims, name, k.H, 'Prepared', 'True', 'Prepared');
    await writeCondition(k.claims, name, k.H, 'Programmed', 'True', 'Programmed');
    await claimCondition(k, name, 'Ready', 'Ready', 'True');
    await deliverServingLocation(k, 'b');
    const refused = await claimCondition(k, name, 'Ready', 'AmbiguousLocationIdentity', 'False');
    assert.equal(conditionOf(refused, 'Programmed')?.status, 'True');
  });

  it('S96 the cell creates nothing upstream', async () => {
    k = await startFixtureK();
    const hubRevision = k.s.server.plane('hub')!.log.revision;
    await dualStackBound(k);
    await settle(k, 'claim');
    assert.equal(k.s.server.plane('hub')!.log.revision, hubRevision, 'nothing was written to the hub');
    for (const plane of ['hub', CELL_A, `project-${ALPHA}`]) {
      const bindings: { items: unknown[] } = await k.s
        .client(plane, NETWORK_BINDINGS)
        .list()
        .catch(() => ({ items: [] }));
      assert.deepEqual(bindings.items, [], `no NetworkBinding in ${plane}`);
    }
  });

  it('S97 a 253-character claim name gives hashed, valid, distinct IPClaim names', async () => {
    k = await startFixtureK();
    const name = `web-${'a'.repeat(249)}`;
    assert.equal(name.length, 253);
    await createClaim(k, name, { ipFamilies: ['IPv6', 'IPv4'] });
    await bound(k, name);
    const v6 = addressClaimName(name, 'cell-a', 'f-ipv6');
    const v4 = addressClaimName(name, 'cell-a', 'f-ipv4');
    assert.notEqual(v6, v4);
    for (const ipClaim of [v6, v4]) {
      assert.match(ipClaim, /^web-a{236}-[0-9a-f]{12}$/);
      assert.ok(isDnsSubdomain(ipClaim));
      assert.ok(await k.ipClaims.get(ipClaim, 'default'), `${ipClaim} exists`);
    }
    const names = await ipClaimNames(k);
    await reconcileClaimAgain(k, name);
    assert.deepEqual(await ipClaimNames(k), names);
    assert.equal(addressClaimName('x', 'cell-a', 'c-f-ipv6'), 'x.cell-a-c-f-ipv6');
    assert.notEqual(addressClaimName('x', 'cell-a', 'c-f-ipv6'), addressClaimName('x', 'cell-a', 'f-ipv6'));
  });

  it('S98 a claim outlives its interface', async () => {
    k = await startFixtureK();
    await dualStackBound(k);
    await k.stopCell();
    await k.interfaces.patchMerge('web-0-eth0', k.H, { metadata: { finalizers: null } });
    await k.interfaces.delete('web-0-eth0', k.H);
    await k.claims.delete('web-0-eth0', k.H);
    await k.startCell([claimController]);
    const names = [
      'web-0-eth0.cell-a-f-ipv6',
      'web-0-eth0.cell-a-f-ipv4',
      'web-0-eth0.cell-a-c-datum-public-v4',
    ];
    await until(
      async () => {
        const left = await Promise.all([
          k!.claims.get('web-0-eth0', k!.H),
          ...names.map((n) => k!.ipClaims.get(n, 'default')),
          ...names.map((n) => k!.ipAllocations.get(n, 'default')),
        ]);
        return left.every((o) => o === undefined);
      },
      WITHIN,
      'the IPClaims, their IPAllocations and the claim to go',
    );
  });
});

/** Scenario 84's Given: Retain claim keep-eth0 bound at fd20::1:0:0/96, then deleted. */
async function retainedKeep(fixture: CellScenario): Promise<NetworkInterface> {
  await createClaim(fixture, 'keep-eth0', { reclaimPolicy: 'Retain' });
  await bound(fixture, 'keep-eth0');
  await fixture.claims.delete('keep-eth0', fixture.H);
  await until(async () => !(await fixture.claims.get('keep-eth0', fixture.H)), WITHIN, 'keep-eth0 to go');
  const iface = await until(
    async () => (await fixture.interfaces.get('keep-eth0', fixture.H))?.status?.phase === 'Available',
    WITHIN,
    'keep-eth0 to be Available',
  ).then(() => fixture.interfaces.get('keep-eth0', fixture.H));
  assert.equal(iface!.spec.claimRef, undefined);
  assert.equal(iface!.spec.addresses?.[0].address, 'fd20::1:0:0/96');
  assert.ok(await fixture.ipClaims.get('keep-eth0.cell-a-f-ipv6', 'default'), 'its IPClaim still exists');
  return iface!;
}

async function ipClaimUids(fixture: CellScenario): Promise<string[]> {
  return (await fixture.ipClaims.list({ namespace: 'default' })).items
    .map((c) => `${c.metadata.name}@${c.metadata.uid}`)
    .sort();
}

function v4Subnet(fixture: CellScenario, name: string, startAddress: string, prefixLength: number): Subnet {
  return {
    metadata: { name, namespace: fixture.H, labels: { 'networking.datumapis.com/network': 'vpc' } },
    spec: {
      subnetClass: 'private',
      networkContext: { name: C },
      location: { name: 'us-central-1' },
      ipFamily: 'IPv4',
      startAddress,
      prefixLength,
    },
  };
}
