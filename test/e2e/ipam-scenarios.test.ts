/**
 * scenarios.md §8, the embedded IPAM (S63–S74): IPClaims bound in the write that creates them,
 * releases, refusals and their Statuses, through the real HTTP API with the project's client over
 * client-node. Every scenario gets a fresh project plane composed as the fleet composes one
 * (test/support/ipam-plane.ts); S74 classifies refusals as the controllers do.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ipAllocationKind, type IPAllocation } from '../../src/apis/ipam/v1alpha1/ip-allocation.ts';
import { ipClaimKind, type IPClaim } from '../../src/apis/ipam/v1alpha1/ip-claim.ts';
import { ipClassKind, type IPClass } from '../../src/apis/ipam/v1alpha1/ip-class.ts';
import { ipPoolKind, type IPPool } from '../../src/apis/ipam/v1alpha1/ip-pool.ts';
import { networkLocationScope, networkScope } from '../../src/apis/ipam/v1alpha1/scope.ts';
import { IpamFailureReason, requestDescription } from '../../src/apis/networking/v1alpha/ipam-failures.ts';
import { StatusError, statusErrorFrom, type Status } from '../../src/client/errors.ts';
import { resourceClient } from '../../src/client/resource-client.ts';
import type { ResourceClient } from '../../src/client/types.ts';
import { classifyIpamFailure, isProjectNamespaceMissing } from '../../src/controllers/shared/ipam-access.ts';
import { resourceIdOf } from '../../src/runtime/resource-ids.ts';
import { formatCidr, overlaps, parseCidr } from '../../src/ipam/cidr.ts';
import { startTestServer, type TestServer } from '../support/apiserver.ts';
import { ipamProjectPlane } from '../support/ipam-plane.ts';

const PLANES = ['s63', 's64', 's65', 's66', 's67', 's68', 's69', 's70', 's71a', 's71b', 's72', 's73'];
const NS = 'default';
const VPC_US = networkLocationScope('vpc', 'us-central-1');
const ROOT_POOLS = ['datum-endpoint-v4-root', 'datum-network-v6-root', 'datum-public-v4-root'];

interface Ipam {
  claims: ResourceClient<IPClaim>;
  allocations: ResourceClient<IPAllocation>;
  pools: ResourceClient<IPPool>;
  classes: ResourceClient<IPClass>;
}

function claim(name: string, spec: IPClaim['spec'], namespace = NS): IPClaim {
  return { metadata: { name, namespace }, spec };
}

const familyV6 = (name: string) => claim(name, { ipFamily: 'IPv6', scope: VPC_US });

/** The refusal of a request that must be refused. */
async function refusal(request: Promise<unknown>): Promise<StatusError> {
  try {
    await request;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('the request was accepted');
}

const causeTypes = (err: StatusError) => err.causes.map((cause) => (cause as { type?: string }).type);

async function names<T extends { metadata: { name?: string } }>(
  client: ResourceClient<T>,
): Promise<string[]> {
  return (await client.list()).items.map((o) => o.metadata.name!).sort();
}

describe('embedded IPAM', () => {
  let t: TestServer;
  const planes = new Map<string, Ipam>();

  before(async () => {
    t = await startTestServer(PLANES);
    await Promise.all(PLANES.map((name) => ipamProjectPlane(t, name)));
    for (const name of PLANES) {
      const kc = t.kubeConfig(name);
      planes.set(name, {
        claims: resourceClient(kc, resourceIdOf(ipClaimKind)),
        allocations: resourceClient(kc, resourceIdOf(ipAllocationKind)),
        pools: resourceClient(kc, resourceIdOf(ipPoolKind)),
        classes: resourceClient(kc, resourceIdOf(ipClassKind)),
      });
    }
  });
  after(async () => t.stop());

  /** Scenario 63's Given and When: `e1-f-ipv6` created in a fresh plane. */
  async function scenario63(ipam: Ipam): Promise<IPClaim> {
    return ipam.claims.create(familyV6('e1-f-ipv6'));
  }

  /** Scenario 65's When: the ScopeRange claim `network-x` for network `vpc`. */
  async function scenario65(ipam: Ipam): Promise<IPClaim> {
    return ipam.claims.create(
      claim('network-x', { className: 'datum-network-v6', target: 'ScopeRange', scope: networkScope('vpc') }),
    );
  }

  it('S63 a family claim provisions its chain', async () => {
    const ipam = planes.get('s63')!;
    const created = await scenario63(ipam);
    assert.deepEqual(created.status, {
      phase: 'Bound',
      allocatedCIDR: 'fd20::1:0:0/96',
      poolRef: { name: 'datum-subnet-v6-vpc-us-central-1' },
      boundAllocationRef: { name: 'e1-f-ipv6' },
    });
    const network = await ipam.pools.get('datum-network-v6-vpc');
    assert.deepEqual(network?.spec, {
      className: 'datum-network-v6',
      cidr: 'fd20::/48',
      parentPoolRef: { name: 'datum-network-v6-root' },
      scope: networkScope('vpc'),
    });
    const subnet = await ipam.pools.get('datum-subnet-v6-vpc-us-central-1');
    assert.deepEqual(subnet?.spec, {
      className: 'datum-subnet-v6',
      cidr: 'fd20::/64',
      parentPoolRef: { name: 'datum-network-v6-vpc' },
      scope: VPC_US,
    });
    const allocation = await ipam.allocations.get('e1-f-ipv6', NS);
    assert.deepEqual(allocation?.spec, {
      poolRef: { name: 'datum-subnet-v6-vpc-us-central-1' },
      cidr: 'fd20::1:0:0/96',
      ipFamily: 'IPv6',
    });
    assert.deepEqual(allocation?.status, { phase: 'Bound', claimRef: { name: 'e1-f-ipv6' } });
  });

  it('S64 lowest free block, deterministic', async () => {
    const ipam = planes.get('s64')!;
    await scenario63(ipam);
    const cidrOf = async (name: string) => (await ipam.claims.create(familyV6(name))).status?.allocatedCIDR;
    assert.equal(await cidrOf('e2-f-ipv6'), 'fd20::2:0:0/96');
    assert.equal(await cidrOf('e3-f-ipv6'), 'fd20::3:0:0/96');
    assert.ok(await ipam.claims.delete('e2-f-ipv6', NS));
    assert.equal(await cidrOf('e4-f-ipv6'), 'fd20::2:0:0/96');
    const reserved = parseCidr('fd20::/96')!;
    for (const allocation of (await ipam.allocations.list()).items) {
      assert.ok(
        !overlaps(parseCidr(allocation.spec.cidr)!, reserved),
        `${allocation.spec.cidr} is in fd20::/96`,
      );
    }
    const v4 = await ipam.claims.create(claim('v4-f-ipv4', { ipFamily: 'IPv4' }));
    assert.equal(v4.status?.allocatedCIDR, '10.128.0.1/32');
    const pub = await ipam.claims.create(claim('pub-c-datum-public-v4', { className: 'datum-public-v4' }));
    assert.equal(pub.status?.allocatedCIDR, '203.0.113.1/32');
  });

  it('S65 a range claim binds the pool', async () => {
    const ipam = planes.get('s65')!;
    await scenario63(ipam);
    const range = await scenario65(ipam);
    assert.deepEqual(range.status, {
      phase: 'Bound',
      allocatedCIDR: 'fd20::/48',
      poolRef: { name: 'datum-network-v6-vpc' },
    });
    assert.equal(await ipam.allocations.get('network-x', NS), undefined);
  });

  it('S66 a second claim of the same name is refused with ClaimExists and allocates nothing', async () => {
    const ipam = planes.get('s66')!;
    await scenario63(ipam);
    const duplicate = await refusal(ipam.claims.create(familyV6('e1-f-ipv6')));
    assert.equal(duplicate.code, 409);
    assert.equal(duplicate.reason, 'AlreadyExists');
    assert.deepEqual(causeTypes(duplicate), ['ClaimExists']);
    assert.deepEqual(await names(ipam.allocations), ['e1-f-ipv6']);
  });

  it('S67 Retain holds the name and the block', async () => {
    const ipam = planes.get('s67')!;
    const r1 = claim('r1-f-ipv6', { ipFamily: 'IPv6', scope: VPC_US, reclaimPolicy: 'Retain' });
    assert.equal((await ipam.claims.create(r1)).status?.allocatedCIDR, 'fd20::1:0:0/96');
    assert.ok(await ipam.claims.delete('r1-f-ipv6', NS));
    const retained = await ipam.allocations.get('r1-f-ipv6', NS);
    assert.deepEqual(retained?.status, { phase: 'Retained' });
    const conflict = await refusal(ipam.claims.create(r1));
    assert.equal(conflict.code, 409);
    assert.equal(conflict.reason, 'Conflict');
    assert.deepEqual(causeTypes(conflict), ['AllocationRetained']);
    assert.equal(conflict.causes[0].message, 'r1-f-ipv6');
    assert.ok(await ipam.allocations.delete('r1-f-ipv6', NS));
    assert.equal((await ipam.claims.create(r1)).status?.allocatedCIDR, 'fd20::1:0:0/96');
  });

  it('S68 occupied ranges and bound allocations', async () => {
    const ipam = planes.get('s68')!;
    await scenario63(ipam);
    await scenario65(ipam);
    const occupied = await refusal(ipam.claims.delete('network-x', NS));
    assert.equal(occupied.code, 409);
    assert.equal(occupied.reason, 'Conflict');
    assert.equal(occupied.message, 'IPPool "datum-network-v6-vpc" still has 1 allocation(s) inside it');
    assert.ok(await ipam.claims.get('network-x', NS));
    const bound = await refusal(ipam.allocations.delete('e1-f-ipv6', NS));
    assert.equal(bound.code, 409);
    assert.equal(
      bound.message,
      'IPAllocation "e1-f-ipv6" is bound to IPClaim "e1-f-ipv6"; delete the claim instead',
    );
    assert.ok(await ipam.allocations.get('e1-f-ipv6', NS));
  });

  it('S69 rejections carry their cause', async () => {
    const ipam = planes.get('s69')!;
    await ipam.classes.delete('datum-endpoint-v4');
    await ipam.classes.create({
      metadata: { name: 'datum-endpoint-v4' },
      spec: { ipFamily: 'IPv4', prefixLength: 32, reservedPrefixLength: 32 },
    });
    await ipam.classes.create({
      metadata: { name: 'orphan-v4' },
      spec: { ipFamily: 'IPv4', prefixLength: 32 },
    });
    const cases: [IPClaim, string][] = [
      [claim('nope', { className: 'nope' }), 'ClassNotFound'],
      [claim('v4', { ipFamily: 'IPv4' }), 'NoDefaultClass'],
      [claim('orphan', { className: 'orphan-v4' }), 'NoOfferingPool'],
      [claim('no-location', { ipFamily: 'IPv6', scope: networkScope('vpc') }), 'ScopeRolesMissing'],
      [claim('short', { ipFamily: 'IPv6', scope: VPC_US, prefixLength: 64 }), 'PrefixLengthRejected'],
      [
        claim('range', {
          className: 'datum-subnet-v6',
          target: 'ScopeRange',
          scope: VPC_US,
          prefixLength: 50,
        }),
        'PrefixLengthRejected',
      ],
    ];
    for (const [request, cause] of cases) {
      const refused = await refusal(ipam.claims.create(request));
      assert.equal(refused.code, 400, `${request.metadata.name}: ${refused.message}`);
      assert.equal(refused.reason, 'BadRequest');
      assert.deepEqual(causeTypes(refused), [cause], `${request.metadata.name}: ${refused.message}`);
      if (cause === 'ScopeRolesMissing') assert.equal(refused.causes[0].field, 'spec.scope.location');
    }
    assert.deepEqual(await names(ipam.claims), []);
    assert.deepEqual(await names(ipam.allocations), []);
    assert.deepEqual(await names(ipam.pools), ROOT_POOLS);
    const small = await ipam.claims.create(
      claim('small', { ipFamily: 'IPv6', scope: VPC_US, prefixLength: 120 }),
    );
    assert.equal(small.status?.allocatedCIDR, 'fd20::1:0:0/120');
  });

  it('S70 exhaustion answers 507 and writes nothing', async () => {
    const ipam = planes.get('s70')!;
    assert.ok(await ipam.pools.delete('datum-endpoint-v4-root'));
    await ipam.pools.create({
      metadata: { name: 'datum-endpoint-v4-root' },
      spec: { className: 'datum-endpoint-v4', cidr: '10.128.0.0/30' },
    });
    const v4 = (name: string) => claim(name, { ipFamily: 'IPv4' });
    for (const [index, name] of ['a', 'b', 'c'].entries()) {
      assert.equal((await ipam.claims.create(v4(name))).status?.allocatedCIDR, `10.128.0.${index + 1}/32`);
    }
    const exhausted = await refusal(ipam.claims.create(v4('d')));
    assert.equal(exhausted.code, 507);
    assert.equal(exhausted.reason, 'InsufficientStorage');
    const { causes, ...details } = exhausted.status.details ?? {};
    assert.deepEqual(details, {
      name: 'datum-endpoint-v4-root',
      group: 'ipam.miloapis.com',
      kind: 'ippools',
    });
    assert.deepEqual(
      causes?.map((cause) => (cause as { type?: string }).type),
      ['Exhausted'],
    );
    assert.equal(await ipam.claims.get('d', NS), undefined);
    assert.equal(await ipam.allocations.get('d', NS), undefined);
  });

  it('S71 empty provisioned pools go', async () => {
    const only63 = planes.get('s71a')!;
    await scenario63(only63);
    assert.ok(await only63.claims.delete('e1-f-ipv6', NS));
    assert.deepEqual(await names(only63.pools), ROOT_POOLS);

    const with65 = planes.get('s71b')!;
    await scenario63(with65);
    await scenario65(with65);
    assert.ok(await with65.claims.delete('e1-f-ipv6', NS));
    assert.deepEqual(await names(with65.pools), [...ROOT_POOLS, 'datum-network-v6-vpc'].sort());
    assert.ok(await with65.claims.delete('network-x', NS));
    assert.deepEqual(await names(with65.pools), ROOT_POOLS);
  });

  it('S72 a claim in a missing namespace is refused with 404 naming the namespace', async () => {
    const ipam = planes.get('s72')!;
    const missing = await refusal(
      ipam.claims.create(claim('e1-f-ipv6', { ipFamily: 'IPv6', scope: VPC_US }, 'ghost')),
    );
    assert.equal(missing.code, 404);
    const { group, kind, name } = missing.status.details ?? {};
    assert.deepEqual({ group, kind, name }, { group: '', kind: 'namespaces', name: 'ghost' });
  });

  it('S73 twenty concurrent claims get the twenty lowest free blocks, none overlapping', async () => {
    const ipam = planes.get('s73')!;
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => ipam.claims.create(familyV6(`c${i}-f-ipv6`))),
    );
    const blocks = claims.map((c) => parseCidr(c.status!.allocatedCIDR!)!);
    for (const [i, a] of blocks.entries()) {
      for (const b of blocks.slice(i + 1))
        assert.ok(!overlaps(a, b), `${formatCidr(a)} overlaps ${formatCidr(b)}`);
    }
    const lowest = Array.from({ length: 20 }, (_, i) => `fd20::${(i + 1).toString(16)}:0:0/96`);
    assert.deepEqual(blocks.map(formatCidr).sort(), [...lowest].sort());
  });

  it('S74 every IPAM refusal is classified into its reason on the client side', () => {
    const ipam = (code: number, reason: string, details?: Status['details'], message = 'refused') =>
      statusErrorFrom(code, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code,
        reason,
        message,
        details,
      });
    const cause = (type: string, message = 'refused') => ({ causes: [{ type, reason: type, message }] });
    const what = requestDescription({ family: 'IPv4' });
    const refusals: [unknown, IpamFailureReason][] = [
      [
        ipam(507, 'InsufficientStorage', { name: 'p', kind: 'ippools', ...cause('Exhausted') }),
        'AddressPoolExhausted',
      ],
      [ipam(507, 'InsufficientStorage'), 'AddressPoolExhausted'],
      [
        ipam(409, 'Conflict', { name: 'c', kind: 'ipclaims', ...cause('AllocationRetained', 'c') }),
        'RetainedAddressConflict',
      ],
      [
        ipam(409, 'AlreadyExists', { name: 'c', kind: 'ipclaims', ...cause('ClaimExists') }),
        'RetainedAddressConflict',
      ],
      ...[
        'ClassNotFound',
        'NoDefaultClass',
        'NoOfferingPool',
        'PrefixLengthRejected',
        'ScopeRolesMissing',
        'NoProjectScope',
      ].map((type): [unknown, IpamFailureReason] => [
        ipam(400, 'BadRequest', cause(type)),
        'AddressAllocationRejected',
      ]),
      [ipam(400, 'BadRequest', cause('SomethingElse')), 'AllocationFailed'],
      [ipam(500, 'InternalError'), 'AllocationFailed'],
      [new Error('connect ECONNREFUSED 127.0.0.1:6443'), 'AllocationFailed'],
    ];
    assert.deepEqual(
      refusals.map(([err]) => classifyIpamFailure(err, what).reason),
      refusals.map(([, reason]) => reason),
    );
    assert.equal(
      classifyIpamFailure(refusals[0][0], what).message,
      'No address is left for an IPv4 address: IPPool "p" is exhausted',
    );

    const notFound = (details?: Status['details']) => ipam(404, 'NotFound', details);
    assert.ok(isProjectNamespaceMissing(notFound({ group: '', kind: 'namespaces', name: NS }), NS));
    assert.ok(
      !isProjectNamespaceMissing(notFound({ group: 'ipam.miloapis.com', kind: 'ipclaims', name: NS }), NS),
    );
    assert.ok(!isProjectNamespaceMissing(notFound(), NS));
    assert.ok(!isProjectNamespaceMissing(notFound({ group: '', kind: 'namespaces', name: 'other' }), NS));
  });
});
