/**
 * Isolation between cells through `netpresence up` (scenarios.md §16, S131): claims of one name in
 * the cells of two locations hold separate IPClaims, each named after and labelled with its cell,
 * and addresses inside their own location's /64.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { CELL_LABEL } from '../../src/apis/ipam/v1alpha1/ip-claim.ts';
import { contains, parseCidr } from '../../src/ipam/cidr.ts';
import {
  ALPHA,
  allWithin,
  get,
  GIVEN_WITHIN,
  isTrue,
  KINDS,
  startFixtureF,
  WITHIN,
  type Any,
  type FleetFixture,
} from '../support/fleet.ts';

const EU = 'eu-west-1';

const within = (address: string | undefined, prefix: string): boolean => {
  const inner = address === undefined ? undefined : parseCidr(address);
  return inner !== undefined && contains(parseCidr(prefix)!, inner);
};

async function ready(f: FleetFixture, binding: string): Promise<void> {
  await allWithin(GIVEN_WITHIN, {
    [`binding ${binding} is Ready`]: async () =>
      isTrue(await get(f, 'hub', 'networkBindings', binding, f.H), 'Ready'),
  });
}

describe('isolation between cells', () => {
  let f: FleetFixture | undefined;
  afterEach(async () => {
    await f?.dispose();
    f = undefined;
  });

  it('S131 one claim name in two cells gets two IPClaims and an address in each /64', async () => {
    f = await startFixtureF({
      locations: [
        {
          name: EU,
          topology: { 'topology.datum.net/city-code': 'DUB', 'topology.datum.net/region': 'europe-west1' },
        },
      ],
      cells: [{ name: 'cell-b', location: EU }],
    });
    await f.createBinding('web');
    await ready(f, 'web');
    await f.client('hub', KINDS.networkBindings).create({
      metadata: { name: 'web-eu', namespace: f.H },
      spec: {
        network: { name: 'vpc' },
        location: { name: EU },
        consumer: { apiGroup: 'compute.datumapis.com', kind: 'WorkloadDeployment', name: 'web-eu' },
      },
    });
    await ready(f, 'web-eu');
    const fixture = f;
    await allWithin(GIVEN_WITHIN, {
      'cell-b holds the context of vpc in eu-west-1': async () =>
        (await get(fixture, 'cell-b', 'networkContexts', `vpc-${EU}`, fixture.H)) !== undefined,
    });

    await f.createClaim('cell-a', 'api-0', { ipFamilies: ['IPv6'] });
    await f.createClaim('cell-b', 'api-0', { ipFamilies: ['IPv6'] });

    const ipv6 = async (cell: string) =>
      (await get(fixture, cell, 'interfaces', 'api-0', fixture.H))?.spec.addresses?.find(
        (a: Any) => a.family === 'IPv6',
      );
    await allWithin(WITHIN, {
      'api-0.cell-a-f-ipv6 exists, labelled cell-a': async () =>
        (await get(fixture, ALPHA, 'ipClaims', 'api-0.cell-a-f-ipv6', 'default'))?.metadata.labels?.[
          CELL_LABEL
        ] === 'cell-a',
      'api-0.cell-b-f-ipv6 exists, labelled cell-b': async () =>
        (await get(fixture, ALPHA, 'ipClaims', 'api-0.cell-b-f-ipv6', 'default'))?.metadata.labels?.[
          CELL_LABEL
        ] === 'cell-b',
      'the interface on cell-a is in fd20::/64 with gateway fd20::1': async () => {
        const address = await ipv6('cell-a');
        return within(address?.address, 'fd20::/64') && address.gateway === 'fd20::1';
      },
      'the interface on cell-b is in fd20:0:0:1::/64 with gateway fd20:0:0:1::1': async () => {
        const address = await ipv6('cell-b');
        return within(address?.address, 'fd20:0:0:1::/64') && address.gateway === 'fd20:0:0:1::1';
      },
    });
    const [a, b] = [await ipv6('cell-a'), await ipv6('cell-b')];
    assert.notEqual(a.address, b.address);
    assert.equal(
      a.address,
      (await get(f, ALPHA, 'ipClaims', 'api-0.cell-a-f-ipv6', 'default')).status.allocatedCIDR,
    );
    assert.equal(
      b.address,
      (await get(f, ALPHA, 'ipClaims', 'api-0.cell-b-f-ipv6', 'default')).status.allocatedCIDR,
    );
  });
});
