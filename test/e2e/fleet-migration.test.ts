/**
 * Address-family migration through `netpresence up` (feature table row 23): an IPv4-only Network
 * with a Ready binding and a bound claim, edited to `[IPv4, IPv6]`, gains its /48 and /64 while
 * the binding stays Ready; and the reverse, IPv6 dropped, keeps existing interfaces' addresses,
 * has their claims report `AddressFamilyNotCarried`, and refuses new claims asking for IPv6.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { claimRefusalMessages } from '../../src/apis/networking/v1alpha/claim-refusals.ts';
import type { WatchHandle } from '../../src/client/types.ts';
import { contains, parseCidr } from '../../src/ipam/cidr.ts';
import {
  ALPHA,
  allWithin,
  conditionOf,
  get,
  GIVEN_WITHIN,
  isTrue,
  KINDS,
  startFixtureF,
  WITHIN,
  type Any,
  type FleetFixture,
} from '../support/fleet.ts';

const V4 = 'v4net';
const V4_CONTEXT = 'v4net-us-central-1';
const V4_SUBNET = 'v4net-us-central-1-ipv6';
const notCarried = claimRefusalMessages.familyNotCarried('vpc', 'us-central-1', 'IPv6');

/** Records every state of binding `web` from now on that is not Ready=True. */
async function watchReadiness(f: FleetFixture): Promise<{ lapses: string[]; stop(): void }> {
  const client = f.client<Any>('hub', KINDS.networkBindings);
  const listed = await client.list({ namespace: f.H });
  const lapses: string[] = [];
  const handle: WatchHandle = await client.watch(
    { namespace: f.H, resourceVersion: listed.resourceVersion },
    (type, object) => {
      if (object?.metadata?.name !== 'web' || type === 'BOOKMARK') return;
      const ready = conditionOf(object, 'Ready');
      if (type === 'DELETED' || ready?.status !== 'True')
        lapses.push(`${type} Ready=${ready?.status} ${ready?.reason}: ${ready?.message}`);
    },
    () => undefined,
  );
  return { lapses, stop: () => handle.abort() };
}

async function setFamilies(f: FleetFixture, network: string, ipFamilies: string[]): Promise<void> {
  await f.client(ALPHA, KINDS.networks).patchMerge(network, 'default', { spec: { ipFamilies } });
}

describe('address-family migration', () => {
  let f: FleetFixture | undefined;
  afterEach(async () => {
    await f?.dispose();
    f = undefined;
  });

  it('an IPv4-only network edited to [IPv4, IPv6] gets its /48 and /64 and the binding stays Ready', async () => {
    f = await startFixtureF();
    const fixture = f;
    await f.client(ALPHA, KINDS.networks).create({
      metadata: { name: V4, namespace: 'default' },
      spec: { ipam: { mode: 'Auto' }, ipFamilies: ['IPv4'] },
    });
    await f.createBinding('web', V4);
    await f.createClaim('cell-a', 'web-0-eth0', { network: { name: V4 }, ipFamilies: ['IPv4'] });
    await allWithin(GIVEN_WITHIN, {
      'web is Ready': async () =>
        isTrue(await get(fixture, 'hub', 'networkBindings', 'web', fixture.H), 'Ready'),
      'web-0-eth0 is Bound with an IPv4 address': async () => {
        const claim = await get(fixture, 'cell-a', 'claims', 'web-0-eth0', fixture.H);
        return isTrue(claim, 'Bound') && claim.status?.addresses?.some((a: Any) => a.family === 'IPv4');
      },
    });
    assert.equal(
      (await get(f, ALPHA, 'networks', V4, 'default'))?.status?.ipam?.ipv6Prefix,
      undefined,
      'no /48',
    );
    assert.equal(await get(f, ALPHA, 'subnets', V4_SUBNET, 'default'), undefined, 'no /64');
    const ipv4 = (await get(f, 'cell-a', 'interfaces', 'web-0-eth0', f.H)).spec.addresses;
    const readiness = await watchReadiness(f);
    try {
      await setFamilies(f, V4, ['IPv4', 'IPv6']);
      await allWithin(WITHIN, {
        'the network holds a /48 and its context a /64 inside it': async () => {
          const prefix = (await get(fixture, ALPHA, 'networks', V4, 'default'))?.status?.ipam?.ipv6Prefix;
          const subnet = await get(fixture, ALPHA, 'subnets', V4_SUBNET, 'default');
          const start = subnet?.spec?.startAddress;
          return (
            prefix !== undefined &&
            parseCidr(prefix)?.prefixLength === 48 &&
            subnet?.spec?.prefixLength === 64 &&
            start !== undefined &&
            contains(parseCidr(prefix)!, parseCidr(`${start}/64`)!)
          );
        },
        'the context carries [IPv4, IPv6]': async () =>
          JSON.stringify(
            (await get(fixture, ALPHA, 'networkContexts', V4_CONTEXT, 'default'))?.spec.ipFamilies,
          ) === '["IPv4","IPv6"]',
        'cell-a holds the Subnet': async () =>
          (await get(fixture, 'cell-a', 'subnets', V4_SUBNET, fixture.H)) !== undefined,
        'web is Ready': async () =>
          isTrue(await get(fixture, 'hub', 'networkBindings', 'web', fixture.H), 'Ready'),
      });
    } finally {
      readiness.stop();
    }
    assert.deepEqual(readiness.lapses, [], 'the binding never left Ready');
    const claim = await get(f, 'cell-a', 'claims', 'web-0-eth0', f.H);
    assert.ok(isTrue(claim, 'Bound'));
    assert.deepEqual((await get(f, 'cell-a', 'interfaces', 'web-0-eth0', f.H)).spec.addresses, ipv4);
  });

  it('IPv6 dropped: interfaces keep their addresses, claims report it, new IPv6 claims are refused', async () => {
    f = await startFixtureF();
    const fixture = f;
    await setFamilies(f, 'vpc', ['IPv6', 'IPv4']);
    await f.createBinding('web');
    await f.createClaim('cell-a', 'web-0-eth0', { ipFamilies: ['IPv6'] });
    await allWithin(GIVEN_WITHIN, {
      'web-0-eth0 is Bound': async () =>
        isTrue(await get(fixture, 'cell-a', 'claims', 'web-0-eth0', fixture.H), 'Bound'),
    });
    const before = (await get(f, 'cell-a', 'interfaces', 'web-0-eth0', f.H)).spec.addresses;
    assert.equal(before[0].family, 'IPv6');

    await setFamilies(f, 'vpc', ['IPv4']);
    await allWithin(WITHIN, {
      'web-0-eth0 reports Ready=False AddressFamilyNotCarried and stays Bound': async () => {
        const claim = await get(fixture, 'cell-a', 'claims', 'web-0-eth0', fixture.H);
        const ready = conditionOf(claim, 'Ready');
        return (
          ready?.status === 'False' &&
          ready.reason === 'AddressFamilyNotCarried' &&
          ready.message === notCarried &&
          isTrue(claim, 'Bound')
        );
      },
    });
    assert.deepEqual((await get(f, 'cell-a', 'interfaces', 'web-0-eth0', f.H)).spec.addresses, before);

    await f.createClaim('cell-a', 'web-1-eth0', { ipFamilies: ['IPv6'] });
    await allWithin(WITHIN, {
      'web-1-eth0 is refused AddressFamilyNotCarried': async () => {
        const claim = await get(fixture, 'cell-a', 'claims', 'web-1-eth0', fixture.H);
        const bound = conditionOf(claim, 'Bound');
        return (
          bound?.status === 'False' &&
          bound.reason === 'AddressFamilyNotCarried' &&
          bound.message === notCarried
        );
      },
    });
    assert.equal(await get(f, 'cell-a', 'interfaces', 'web-1-eth0', f.H), undefined);
    assert.equal(await get(f, ALPHA, 'ipClaims', 'web-1-eth0.cell-a-f-ipv6', 'default'), undefined);
  });
});
