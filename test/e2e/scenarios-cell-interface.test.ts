/**
 * Interface controller scenarios (scenarios.md §11, S99–S100): what deleting an interface
 * releases, retained or under a live claim.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  bound,
  createClaim,
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

async function ipClaimUids(fixture: CellScenario): Promise<string[]> {
  return (await fixture.ipClaims.list({ namespace: 'default' })).items
    .map((c) => `${c.metadata.name}@${c.metadata.uid}`)
    .sort();
}

describe('interface controller', () => {
  it('S99 deleting a retained interface releases it', async () => {
    k = await startFixtureK();
    await createClaim(k, 'keep-eth0', { reclaimPolicy: 'Retain' });
    await bound(k, 'keep-eth0');
    await k.claims.delete('keep-eth0', k.H);
    await until(
      async () => (await k!.interfaces.get('keep-eth0', k!.H))?.status?.phase === 'Available',
      WITHIN,
      'keep-eth0 to be Available',
    );
    assert.ok(await k.ipClaims.get('keep-eth0.cell-a-f-ipv6', 'default'));
    await k.interfaces.delete('keep-eth0', k.H);
    await until(
      async () =>
        !(await k!.interfaces.get('keep-eth0', k!.H)) &&
        !(await k!.ipClaims.get('keep-eth0.cell-a-f-ipv6', 'default')) &&
        !(await k!.ipAllocations.get('keep-eth0.cell-a-f-ipv6', 'default')),
      WITHIN,
      'the interface, keep-eth0-f-ipv6 and its retained IPAllocation to go',
    );
    await createClaim(k, 'keep-eth0', { reclaimPolicy: 'Retain' });
    const rebound = await bound(k, 'keep-eth0');
    assert.equal(rebound.status?.addresses?.[0].address, 'fd20::1:0:0/96');
  });

  it('S100 deleting a bound interface under a live claim releases nothing', async () => {
    k = await startFixtureK();
    await createClaim(k, 'web-0-eth0', {
      ipFamilies: ['IPv6', 'IPv4'],
      addresses: [{ class: 'datum-public-v4' }],
    });
    await bound(k, 'web-0-eth0');
    const before = (await k.interfaces.get('web-0-eth0', k.H))!;
    const ipClaims = await ipClaimUids(k);
    await k.interfaces.delete('web-0-eth0', k.H);
    await until(
      async () => {
        const iface = await k!.interfaces.get('web-0-eth0', k!.H);
        return iface !== undefined && iface.metadata.uid !== before.metadata.uid;
      },
      WITHIN,
      'the claim to rebuild the interface',
    );
    const rebuilt = (await k.interfaces.get('web-0-eth0', k.H))!;
    assert.deepEqual(
      rebuilt.spec.addresses?.map((a) => a.address),
      before.spec.addresses?.map((a) => a.address),
    );
    assert.deepEqual(rebuilt.spec.externalAddresses, before.spec.externalAddresses);
    assert.deepEqual(await ipClaimUids(k), ipClaims);
  });
});
