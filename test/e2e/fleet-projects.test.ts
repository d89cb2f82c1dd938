/**
 * End to end through `netpresence up` (scenarios.md §13, S114–S115): two networks sharing a
 * location, and two projects sharing a cell without seeing each other. Fixture F, real-time
 * bounds of 2 seconds.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { networkContextMessages } from '../../src/apis/networking/v1alpha/network-context.ts';
import {
  allWithin,
  ALPHA,
  C,
  conditionOf,
  get,
  GIVEN_WITHIN,
  isTrue,
  KINDS,
  present,
  startFixtureF,
  SUBNET,
  WITHIN,
  type Any,
  type FleetFixture,
} from '../support/fleet.ts';

const BETA = 'project-project-beta';
const DB_CONTEXT = 'db-us-central-1';
const DB_SUBNET = 'db-us-central-1-ipv6';

/** The IPv6 address and gateway of an interface, once it has them. */
async function ipv6Of(f: FleetFixture, cell: string, name: string, namespace: string) {
  const iface = await get(f, cell, 'interfaces', name, namespace);
  const address = iface?.spec.addresses.find((a: Any) => a.family === 'IPv6');
  return address && { address: address.address as string, gateway: address.gateway as string };
}

const holds = (context: Any, cidr: string) =>
  conditionOf(context, 'IPAMAllocated')?.message === networkContextMessages.allocated(cidr);

describe('end to end on the embedded fleet: networks and projects', () => {
  let f: FleetFixture | undefined;
  afterEach(async () => {
    await f?.dispose();
    f = undefined;
  });

  it('S114 two networks in one location', async () => {
    const fx = (f = await startFixtureF());
    await allWithin(GIVEN_WITHIN, {
      'vpc holds fd20::/48': async () =>
        (await get(fx, ALPHA, 'networks', 'vpc', 'default'))?.status?.ipam?.ipv6Prefix === 'fd20::/48',
    });
    await fx.client(ALPHA, KINDS.networks).create({
      metadata: { name: 'db', namespace: 'default' },
      spec: { ipam: { mode: 'Auto' }, ipFamilies: ['IPv6'] },
    });
    await fx.createBinding('web', 'vpc');
    await fx.createBinding('data', 'db');
    await allWithin(GIVEN_WITHIN, {
      'db holds fd20:0:1::/48': async () =>
        (await get(fx, ALPHA, 'networks', 'db', 'default'))?.status?.ipam?.ipv6Prefix === 'fd20:0:1::/48',
      'both bindings are Ready': async () =>
        isTrue(await get(fx, 'hub', 'networkBindings', 'web', fx.H), 'Ready') &&
        isTrue(await get(fx, 'hub', 'networkBindings', 'data', fx.H), 'Ready'),
    });
    await fx.createClaim('cell-a', 'a-eth0', { network: { name: 'vpc' } });
    await fx.createClaim('cell-a', 'b-eth0', { network: { name: 'db' } });
    await allWithin(WITHIN, {
      'vpc-us-central-1 holds fd20::/64': async () =>
        holds(await get(fx, ALPHA, 'networkContexts', C, 'default'), 'fd20::/64'),
      'db-us-central-1 holds fd20:0:1::/64': async () =>
        holds(await get(fx, ALPHA, 'networkContexts', DB_CONTEXT, 'default'), 'fd20:0:1::/64'),
      'a-eth0 gets fd20::1:0:0/96 with gateway fd20::1': async () => {
        const ipv6 = await ipv6Of(fx, 'cell-a', 'a-eth0', fx.H);
        return ipv6?.address === 'fd20::1:0:0/96' && ipv6.gateway === 'fd20::1';
      },
      'b-eth0 gets fd20:0:1::1:0:0/96 with gateway fd20:0:1::1': async () => {
        const ipv6 = await ipv6Of(fx, 'cell-a', 'b-eth0', fx.H);
        return ipv6?.address === 'fd20:0:1::1:0:0/96' && ipv6.gateway === 'fd20:0:1::1';
      },
    });
    await fx.client('cell-a', KINDS.claims).delete('b-eth0', fx.H);
    await fx.client('hub', KINDS.networkBindings).delete('data', fx.H);
    await allWithin(WITHIN, {
      'db-us-central-1, its Subnet and their copies go': async () =>
        !(await present(fx, ALPHA, 'networkContexts', DB_CONTEXT, 'default')) &&
        !(await present(fx, ALPHA, 'subnets', DB_SUBNET, 'default')) &&
        !(await present(fx, 'hub', 'networkContexts', DB_CONTEXT, fx.H)) &&
        !(await present(fx, 'hub', 'subnets', DB_SUBNET, fx.H)) &&
        !(await present(fx, 'cell-a', 'networkContexts', DB_CONTEXT, fx.H)) &&
        !(await present(fx, 'cell-a', 'subnets', DB_SUBNET, fx.H)),
    });
    for (const [context, namespace] of [
      [ALPHA, 'default'],
      ['hub', fx.H],
      ['cell-a', fx.H],
    ]) {
      assert.ok(await present(fx, context, 'networkContexts', C, namespace), `${C} stays in ${context}`);
      assert.ok(await present(fx, context, 'subnets', SUBNET, namespace), `${SUBNET} stays in ${context}`);
    }
    assert.ok(isTrue(await get(fx, 'cell-a', 'claims', 'a-eth0', fx.H), 'Bound'), 'a-eth0 stays bound');
  });

  it('S115 two projects on one cell keep their contexts, claims and address spaces apart', async () => {
    const fx = (f = await startFixtureF({ projects: ['project-beta'] }));
    const V = await fx.fleet.hubNamespace('project-beta');
    await fx.namespaceOnCell('cell-a', V);
    await fx.createBinding('web');
    await fx.createBinding('web', 'vpc', V);
    await allWithin(GIVEN_WITHIN, {
      'both bindings are Ready': async () =>
        isTrue(await get(fx, 'hub', 'networkBindings', 'web', fx.H), 'Ready') &&
        isTrue(await get(fx, 'hub', 'networkBindings', 'web', V), 'Ready'),
    });
    await fx.createClaim('cell-a', 'x-eth0', {}, fx.H);
    await fx.createClaim('cell-a', 'x-eth0', {}, V);
    await allWithin(WITHIN, {
      'x-eth0 in ns-U has fd20::1:0:0/96': async () =>
        (await ipv6Of(fx, 'cell-a', 'x-eth0', fx.H))?.address === 'fd20::1:0:0/96',
      'x-eth0 in ns-V has fd20::1:0:0/96': async () =>
        (await ipv6Of(fx, 'cell-a', 'x-eth0', V))?.address === 'fd20::1:0:0/96',
    });
    const ipClaims = async (context: string) => (await fx.client<Any>(context, KINDS.ipClaims).list()).items;
    const alphaClaims = await ipClaims(ALPHA);
    const betaClaims = await ipClaims(BETA);
    const alphaInterface = await get(fx, 'cell-a', 'interfaces', 'x-eth0', fx.H);
    const betaInterface = await get(fx, 'cell-a', 'interfaces', 'x-eth0', V);
    assert.ok(alphaClaims.some((c: Any) => c.metadata.name === 'x-eth0.cell-a-f-ipv6'));
    assert.ok(betaClaims.some((c: Any) => c.metadata.name === 'x-eth0.cell-a-f-ipv6'));
    assert.notEqual(alphaInterface.metadata.uid, betaInterface.metadata.uid);
    const betaUids = new Set(betaClaims.map((c: Any) => c.metadata.uid));
    assert.ok(
      alphaClaims.every((c: Any) => !betaUids.has(c.metadata.uid)),
      "a client of project-alpha's plane sees none of project-beta's IPClaims",
    );
    const contexts = async (context: string) =>
      (await fx.client<Any>(context, KINDS.networkContexts).list()).items.map((c: Any) => c.metadata.uid);
    const alphaContexts = await contexts(ALPHA);
    const betaContexts = await contexts(BETA);
    assert.equal(alphaContexts.length, 1);
    assert.equal(betaContexts.length, 1);
    assert.notEqual(alphaContexts[0], betaContexts[0], 'each plane holds only its own context');
  });
});
