import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultIpClasses, defaultRootPools } from '../apis/ipam/v1alpha1/default-set.ts';
import type { IPAllocation } from '../apis/ipam/v1alpha1/ip-allocation.ts';
import type { IPClaim } from '../apis/ipam/v1alpha1/ip-claim.ts';
import type { IPClass } from '../apis/ipam/v1alpha1/ip-class.ts';
import type { IPPool } from '../apis/ipam/v1alpha1/ip-pool.ts';
import { networkLocationScope, networkScope } from '../apis/ipam/v1alpha1/scope.ts';
import { bindClaim } from './allocator.ts';
import { Ledger, type IpamSnapshot } from './ledger.ts';
import { IpamRefusal, type RefusalRule } from './refusal.ts';
import { releaseAllocation, releaseClaim, releasePool } from './release.ts';

/** A project plane's IPAM objects, changed only by what the allocator and release record. */
class Plane {
  classes: IPClass[] = [...defaultIpClasses];
  pools: IPPool[] = [...defaultRootPools];
  allocations: IPAllocation[] = [];
  claims: IPClaim[] = [];

  snapshot(): IpamSnapshot {
    return { classes: this.classes, pools: this.pools, allocations: this.allocations, claims: this.claims };
  }

  /** Runs one operation; on success applies its writes, as the storage transaction would. */
  run<T>(operation: (ledger: Ledger) => T): T {
    const ledger = new Ledger(this.snapshot());
    const result = operation(ledger);
    for (const write of ledger.writes) {
      if (write.plural === 'ippools') {
        this.pools = this.pools.filter((p) => p.metadata.name !== write.object.metadata.name);
        if (!write.remove) this.pools.push(write.object);
      } else {
        const same = (a: IPAllocation) =>
          a.metadata.name === write.object.metadata.name &&
          a.metadata.namespace === write.object.metadata.namespace;
        this.allocations = this.allocations.filter((a) => !same(a));
        if (!write.remove) this.allocations.push(write.object);
      }
    }
    return result;
  }

  create(name: string, spec: IPClaim['spec']): IPClaim {
    const claim: IPClaim = {
      metadata: { name, namespace: 'default' },
      spec: { target: 'Address', reclaimPolicy: 'Delete', ...spec },
    };
    const status = this.run((ledger) => bindClaim(ledger, claim));
    const bound = { ...claim, status };
    this.claims.push(bound);
    return bound;
  }

  deleteClaim(name: string, force = false): void {
    const claim = this.claims.find((c) => c.metadata.name === name)!;
    this.run((ledger) => releaseClaim(ledger, claim, { force }));
    this.claims = this.claims.filter((c) => c !== claim);
  }

  deleteAllocation(name: string, force = false): void {
    const allocation = this.allocations.find((a) => a.metadata.name === name)!;
    this.run((ledger) => releaseAllocation(ledger, allocation, { force }));
    this.allocations = this.allocations.filter((a) => a !== allocation);
  }

  deletePool(name: string): void {
    const pool = this.pools.find((p) => p.metadata.name === name)!;
    this.run((ledger) => releasePool(ledger, pool));
    this.pools = this.pools.filter((p) => p !== pool);
  }

  pool(name: string): IPPool | undefined {
    return this.pools.find((p) => p.metadata.name === name);
  }

  poolNames(): string[] {
    return this.pools.map((p) => p.metadata.name!).sort();
  }
}

const VPC_US = networkLocationScope('vpc', 'us-central-1');
const v6 = (scope = VPC_US): IPClaim['spec'] => ({ ipFamily: 'IPv6', scope });
const ROOTS = defaultRootPools.map((p) => p.metadata.name!).sort();

function ipClass(name: string, spec: IPClass['spec']): IPClass {
  return { metadata: { name }, spec: { scopeRoles: [], default: false, ...spec } };
}

/** Asserts the operation is refused by `rule` and leaves the plane as it was. */
function assertRefused(
  plane: Plane,
  operation: () => unknown,
  rule: RefusalRule,
  message?: string,
): IpamRefusal {
  const before = JSON.stringify(plane.snapshot());
  let refusal: unknown;
  try {
    operation();
  } catch (err) {
    refusal = err;
  }
  assert.ok(refusal instanceof IpamRefusal, `not refused: ${String(refusal)}`);
  assert.equal(refusal.rule, rule, refusal.message);
  if (message !== undefined) assert.equal(refusal.message, message);
  assert.equal(JSON.stringify(plane.snapshot()), before, 'a refused operation changed the plane');
  return refusal;
}

describe('allocator', () => {
  it('binds a family claim to the lowest /96 of its location, provisioning the /48 and the /64', () => {
    const plane = new Plane();
    const claim = plane.create('e1-f-ipv6', v6());
    assert.deepEqual(claim.status, {
      phase: 'Bound',
      allocatedCIDR: 'fd20::1:0:0/96',
      poolRef: { name: 'datum-subnet-v6-vpc-us-central-1' },
      boundAllocationRef: { name: 'e1-f-ipv6' },
    });
    assert.deepEqual(plane.pool('datum-network-v6-vpc')?.spec, {
      className: 'datum-network-v6',
      cidr: 'fd20::/48',
      parentPoolRef: { name: 'datum-network-v6-root' },
      scope: networkScope('vpc'),
    });
    assert.deepEqual(plane.pool('datum-subnet-v6-vpc-us-central-1')?.spec, {
      className: 'datum-subnet-v6',
      cidr: 'fd20::/64',
      parentPoolRef: { name: 'datum-network-v6-vpc' },
      scope: VPC_US,
    });
    assert.deepEqual(
      plane.allocations.map((a) => [a.metadata, a.spec, a.status]),
      [
        [
          { name: 'e1-f-ipv6', namespace: 'default' },
          { poolRef: { name: 'datum-subnet-v6-vpc-us-central-1' }, cidr: 'fd20::1:0:0/96', ipFamily: 'IPv6' },
          { phase: 'Bound', claimRef: { name: 'e1-f-ipv6' } },
        ],
      ],
    );
  });

  it('hands out the lowest free block, so a released block is the next one given', () => {
    const plane = new Plane();
    for (const name of ['e1', 'e2', 'e3']) plane.create(name, v6());
    plane.deleteClaim('e2');
    assert.equal(plane.create('e4', v6()).status?.allocatedCIDR, 'fd20::2:0:0/96');
    assert.equal(plane.create('e5', v6()).status?.allocatedCIDR, 'fd20::4:0:0/96');
  });

  it('gives a second network the next /48 and reuses ranges that exist for a scope', () => {
    const plane = new Plane();
    plane.create('a', v6());
    plane.create('b', v6(networkLocationScope('vpc', 'eu-west-1')));
    const other = plane.create('c', v6(networkLocationScope('lan', 'us-central-1')));
    assert.equal(plane.pool('datum-subnet-v6-vpc-eu-west-1')?.spec.cidr, 'fd20:0:0:1::/64');
    assert.equal(plane.pool('datum-network-v6-lan')?.spec.cidr, 'fd20:0:1::/48');
    assert.equal(other.status?.allocatedCIDR, 'fd20:0:1::1:0:0/96');
  });

  it('gives IPv4 claims /32s after the reserved first address, from the class the claim names', () => {
    const plane = new Plane();
    assert.equal(plane.create('v4', { ipFamily: 'IPv4' }).status?.allocatedCIDR, '10.128.0.1/32');
    assert.equal(
      plane.create('pub', { className: 'datum-public-v4' }).status?.allocatedCIDR,
      '203.0.113.1/32',
    );
  });

  it('binds a ScopeRange claim to its class range without an allocation', () => {
    const plane = new Plane();
    plane.create('e1', v6());
    const range = plane.create('network-x', {
      className: 'datum-network-v6',
      target: 'ScopeRange',
      scope: networkScope('vpc'),
    });
    assert.deepEqual(range.status, {
      phase: 'Bound',
      allocatedCIDR: 'fd20::/48',
      poolRef: { name: 'datum-network-v6-vpc' },
    });
    assert.equal(plane.allocations.length, 1);
  });

  it('accepts a longer block than the class hands out, up to the family width', () => {
    const plane = new Plane();
    assert.equal(
      plane.create('small', { ...v6(), prefixLength: 120 }).status?.allocatedCIDR,
      'fd20::1:0:0/120',
    );
    assert.equal(plane.create('next', v6()).status?.allocatedCIDR, 'fd20::2:0:0/96');
    assert.equal(
      plane.create('one', { ...v6(), prefixLength: 128 }).status?.allocatedCIDR,
      'fd20::1:0:100/128',
    );
  });

  it('tries root pools in name order and names the last one when all are full', () => {
    const plane = new Plane();
    plane.pools = [
      { metadata: { name: 'b-pool' }, spec: { className: 'datum-public-v4', cidr: '198.51.100.0/31' } },
      { metadata: { name: 'a-pool' }, spec: { className: 'datum-public-v4', cidr: '203.0.113.0/31' } },
    ];
    const pub = { className: 'datum-public-v4' };
    assert.equal(plane.create('p1', pub).status?.poolRef?.name, 'a-pool');
    assert.equal(plane.create('p2', pub).status?.allocatedCIDR, '198.51.100.1/32');
    assertRefused(plane, () => plane.create('p3', pub), 'Exhausted', 'IPPool "b-pool" has no free /32 left');
  });

  it('names the range that is full when a parent range has no block left', () => {
    const plane = new Plane();
    plane.pools = [
      { metadata: { name: 'root' }, spec: { className: 'datum-network-v6', cidr: 'fd20::/48' } },
    ];
    plane.create('a', v6());
    const refusal = assertRefused(
      plane,
      () => plane.create('b', v6(networkLocationScope('lan', 'us-central-1'))),
      'Exhausted',
      'IPPool "root" has no free /48 left',
    );
    assert.deepEqual(refusal.subject, { plural: 'ippools', name: 'root' });
  });

  it('falls back to the hashed pool name when the readable one is taken by another pool', () => {
    const plane = new Plane();
    plane.pools.push({
      metadata: { name: 'datum-network-v6-vpc' },
      spec: { className: 'datum-public-v4', cidr: '192.0.2.0/24' },
    });
    const claim = plane.create('r', {
      className: 'datum-network-v6',
      target: 'ScopeRange',
      scope: networkScope('vpc'),
    });
    assert.match(claim.status!.poolRef!.name, /^datum-network-v6-[0-9a-f]{12}$/);
  });
});

describe('allocator refusals', () => {
  it('refuse a name held by a live claim or by an allocation', () => {
    const plane = new Plane();
    plane.create('r1', { ...v6(), reclaimPolicy: 'Retain' });
    assertRefused(
      plane,
      () => plane.create('r1', v6()),
      'ClaimExists',
      'ipclaims.ipam.miloapis.com "r1" already exists',
    );
    plane.deleteClaim('r1');
    const refusal = assertRefused(plane, () => plane.create('r1', v6()), 'AllocationRetained');
    assert.deepEqual(refusal.causes, [{ message: 'r1' }]);
  });

  it('refuse a missing class, a missing default, and a class chain that is broken', () => {
    const plane = new Plane();
    assertRefused(
      plane,
      () => plane.create('x', { className: 'nope' }),
      'ClassNotFound',
      'IPClass "nope" does not exist',
    );
    plane.classes = plane.classes.filter((c) => c.metadata.name !== 'datum-endpoint-v4');
    assertRefused(
      plane,
      () => plane.create('x', { ipFamily: 'IPv4' }),
      'NoDefaultClass',
      'no IPClass is marked default for IPv4',
    );
    plane.classes.push(
      ipClass('orphan', { ipFamily: 'IPv6', prefixLength: 96, parentClassName: 'gone' }),
      ipClass('loop-a', { ipFamily: 'IPv6', prefixLength: 96, parentClassName: 'loop-b' }),
      ipClass('loop-b', { ipFamily: 'IPv6', prefixLength: 64, parentClassName: 'loop-a' }),
      ipClass('mixed', { ipFamily: 'IPv4', prefixLength: 32, parentClassName: 'datum-network-v6' }),
      ipClass('short', { ipFamily: 'IPv6', prefixLength: 40, parentClassName: 'datum-network-v6' }),
    );
    const create = (className: string) => () => plane.create('x', { className });
    assertRefused(
      plane,
      create('orphan'),
      'ClassNotFound',
      'IPClass "gone", the parent of IPClass "orphan", does not exist',
    );
    assertRefused(
      plane,
      create('loop-a'),
      'ClassNotFound',
      'the parent chain of IPClass "loop-a" loops: loop-a -> loop-b -> loop-a',
    );
    assertRefused(
      plane,
      create('mixed'),
      'ClassNotFound',
      'IPClass "mixed" is IPv4, but its parent IPClass "datum-network-v6" is IPv6',
    );
    assertRefused(
      plane,
      create('short'),
      'PrefixLengthRejected',
      'IPClass "short" hands out /40, which is not longer than the /48 of its parent IPClass "datum-network-v6"',
    );
  });

  it('use the first default class by name when a family has several', () => {
    const plane = new Plane();
    plane.classes.push(ipClass('aaa-v4', { ipFamily: 'IPv4', prefixLength: 32, default: true }));
    plane.pools.push({ metadata: { name: 'aaa-root' }, spec: { className: 'aaa-v4', cidr: '192.0.2.0/24' } });
    assert.equal(plane.create('x', { ipFamily: 'IPv4' }).status?.poolRef?.name, 'aaa-root');
  });

  it('refuse a scope that lacks a role of the chain, one cause per missing role in sorted order', () => {
    const plane = new Plane();
    const refusal = assertRefused(
      plane,
      () => plane.create('x', { ipFamily: 'IPv6', scope: {} }),
      'ScopeRolesMissing',
      'IPClass "datum-endpoint-v6" requires scope roles location, network; the claim lacks location, network',
    );
    assert.deepEqual(
      refusal.causes.map((c) => c.field),
      ['spec.scope.location', 'spec.scope.network'],
    );
  });

  it('refuse a length outside the class and family bounds, and any other length on a range', () => {
    const plane = new Plane();
    assertRefused(
      plane,
      () => plane.create('x', { ...v6(), prefixLength: 64 }),
      'PrefixLengthRejected',
      'prefixLength 64 is outside what IPClass "datum-endpoint-v6" allows (96..128)',
    );
    assertRefused(
      plane,
      () => plane.create('x', { ipFamily: 'IPv4', prefixLength: 33 }),
      'PrefixLengthRejected',
      'prefixLength 33 is outside what IPClass "datum-endpoint-v4" allows (32..32)',
    );
    assertRefused(
      plane,
      () =>
        plane.create('x', {
          className: 'datum-subnet-v6',
          target: 'ScopeRange',
          scope: VPC_US,
          prefixLength: 50,
        }),
      'PrefixLengthRejected',
      'prefixLength 50 is outside what IPClass "datum-subnet-v6" allows (64..64)',
    );
  });

  it('refuse a chain ending in a class without root pools', () => {
    const plane = new Plane();
    plane.classes.push(ipClass('orphan-v4', { ipFamily: 'IPv4', prefixLength: 32 }));
    assertRefused(
      plane,
      () => plane.create('x', { className: 'orphan-v4' }),
      'NoOfferingPool',
      'no IPPool offers IPClass "orphan-v4"',
    );
  });
});

describe('release', () => {
  it('removes emptied provisioned pools upward, never a root pool', () => {
    const plane = new Plane();
    plane.create('e1', v6());
    plane.deleteClaim('e1');
    assert.deepEqual(plane.poolNames(), ROOTS);
    assert.deepEqual(plane.allocations, []);
  });

  it('keeps a retained allocation, its block and its name', () => {
    const plane = new Plane();
    plane.create('r1', { ...v6(), reclaimPolicy: 'Retain' });
    plane.deleteClaim('r1');
    assert.deepEqual(plane.allocations[0].status, { phase: 'Retained' });
    assert.equal(plane.create('r2', v6()).status?.allocatedCIDR, 'fd20::2:0:0/96');
    plane.deleteAllocation('r1');
    assert.equal(plane.create('r1', v6()).status?.allocatedCIDR, 'fd20::1:0:0/96');
  });

  it('refuses a range with anything inside, counting child pools and allocations', () => {
    const plane = new Plane();
    plane.create('e1', v6());
    plane.create('network-x', {
      className: 'datum-network-v6',
      target: 'ScopeRange',
      scope: networkScope('vpc'),
    });
    plane.create('subnet-x', { className: 'datum-subnet-v6', target: 'ScopeRange', scope: VPC_US });
    assertRefused(
      plane,
      () => plane.deleteClaim('network-x'),
      'RangeOccupied',
      'IPPool "datum-network-v6-vpc" still has 1 allocation(s) inside it',
    );
    assertRefused(
      plane,
      () => plane.deletePool('datum-network-v6-root'),
      'RangeOccupied',
      'IPPool "datum-network-v6-root" still has 1 allocation(s) inside it',
    );
    assertRefused(
      plane,
      () => plane.deleteAllocation('e1'),
      'AllocationBound',
      'IPAllocation "e1" is bound to IPClaim "e1"; delete the claim instead',
    );
    plane.deleteClaim('e1');
    assert.ok(plane.pool('datum-subnet-v6-vpc-us-central-1'), 'a pool a range claim binds stays');
    assertRefused(
      plane,
      () => plane.deletePool('datum-subnet-v6-vpc-us-central-1'),
      'PoolBound',
      'IPPool "datum-subnet-v6-vpc-us-central-1" is bound to IPClaim "subnet-x" in namespace "default"; delete the claim instead',
    );
    plane.deleteClaim('subnet-x');
    assert.deepEqual(plane.poolNames(), [...ROOTS, 'datum-network-v6-vpc'].sort());
    plane.deleteClaim('network-x');
    assert.deepEqual(plane.poolNames(), ROOTS);
  });

  it('lets a forced release go, leaving an occupied range until its last block is released', () => {
    const plane = new Plane();
    plane.create('e1', v6());
    plane.create('network-x', {
      className: 'datum-network-v6',
      target: 'ScopeRange',
      scope: networkScope('vpc'),
    });
    plane.deleteClaim('network-x', true);
    plane.deleteAllocation('e1', true);
    assert.deepEqual(plane.poolNames(), ROOTS);
  });

  it('frees the parent of a provisioned pool a client deletes', () => {
    const plane = new Plane();
    plane.pools.push(
      {
        metadata: { name: 'datum-network-v6-vpc' },
        spec: {
          className: 'datum-network-v6',
          cidr: 'fd20::/48',
          parentPoolRef: { name: 'datum-network-v6-root' },
          scope: networkScope('vpc'),
        },
      },
      {
        metadata: { name: 'datum-subnet-v6-vpc-us-central-1' },
        spec: {
          className: 'datum-subnet-v6',
          cidr: 'fd20::/64',
          parentPoolRef: { name: 'datum-network-v6-vpc' },
          scope: VPC_US,
        },
      },
    );
    plane.deletePool('datum-subnet-v6-vpc-us-central-1');
    assert.deepEqual(plane.poolNames(), ROOTS);
  });
});
