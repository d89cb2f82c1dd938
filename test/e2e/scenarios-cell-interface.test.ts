/**
 * Interface controller scenarios (scenarios.md §11, S99–S100): what deleting an interface
 * releases, retained or under a live claim; and S136, a `Retain` claim deleted while its
 * interface is already going, which must not leave the addresses to nobody; S137, an adopted
 * interface holding more than its claim asks for, deleted under it, whose extra addresses the
 * rebuilt interface will not hold.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { NetworkInterface } from '../../src/apis/networking/v1alpha/network-interface.ts';
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

/** Deletes the Retain claim `name` and waits for its interface to be kept, unbound and Available. */
async function releaseRetained(fixture: CellScenario, name: string): Promise<void> {
  await fixture.claims.delete(name, fixture.H);
  await until(
    async () => (await fixture.interfaces.get(name, fixture.H))?.status?.phase === 'Available',
    WITHIN,
    `${name} to be Available`,
  );
}

/** Deletes the interface `name` under its live claim and returns the one the claim rebuilds. */
async function rebuiltAfterDelete(fixture: CellScenario, name: string): Promise<NetworkInterface> {
  const before = (await fixture.interfaces.get(name, fixture.H))!;
  await fixture.interfaces.delete(name, fixture.H);
  let rebuilt: NetworkInterface | undefined;
  await until(
    async () => {
      rebuilt = await fixture.interfaces.get(name, fixture.H);
      return rebuilt !== undefined && rebuilt.metadata.uid !== before.metadata.uid;
    },
    WITHIN,
    'the claim to rebuild the interface',
  );
  return rebuilt!;
}

/** Waits for the interface `name` to go with its IPv6 IPClaim and that IPClaim's IPAllocation. */
async function addressesFreedWith(fixture: CellScenario, name: string): Promise<void> {
  const ipClaim = `${name}.cell-a-f-ipv6`;
  await until(
    async () =>
      !(await fixture.interfaces.get(name, fixture.H)) &&
      !(await fixture.ipClaims.get(ipClaim, 'default')) &&
      !(await fixture.ipAllocations.get(ipClaim, 'default')),
    WITHIN,
    `the interface ${name}, IPClaim ${ipClaim} and its IPAllocation to go`,
  );
}

describe('interface controller', () => {
  it('S99 deleting a retained interface releases it', async () => {
    k = await startFixtureK();
    await createClaim(k, 'keep-eth0', { reclaimPolicy: 'Retain' });
    await bound(k, 'keep-eth0');
    await releaseRetained(k, 'keep-eth0');
    assert.ok(await k.ipClaims.get('keep-eth0.cell-a-f-ipv6', 'default'));
    await k.interfaces.delete('keep-eth0', k.H);
    await addressesFreedWith(k, 'keep-eth0');
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
    const rebuilt = await rebuiltAfterDelete(k, 'web-0-eth0');
    assert.deepEqual(
      rebuilt.spec.addresses?.map((a) => a.address),
      before.spec.addresses?.map((a) => a.address),
    );
    assert.deepEqual(rebuilt.spec.externalAddresses, before.spec.externalAddresses);
    assert.deepEqual(await ipClaimUids(k), ipClaims);
  });

  it('S136 a Retain claim deleted while its interface is being deleted releases the addresses', async () => {
    k = await startFixtureK();
    await createClaim(k, 'keep-eth0', { reclaimPolicy: 'Retain' });
    await bound(k, 'keep-eth0');
    // Another finalizer keeps the interface deleting after the interface controller let go of
    // it (judging it held by a live claim): the moment a claim's deletion can meet it.
    const iface = (await k.interfaces.get('keep-eth0', k.H))!;
    await k.interfaces.patchMerge('keep-eth0', k.H, {
      metadata: { finalizers: [...(iface.metadata.finalizers ?? []), 'example.com/hold'] },
    });
    await k.interfaces.delete('keep-eth0', k.H);
    await until(
      async () =>
        (await k!.interfaces.get('keep-eth0', k!.H))?.metadata.finalizers?.join() === 'example.com/hold',
      WITHIN,
      'the interface controller to let go of the deleting interface',
    );
    await k.claims.delete('keep-eth0', k.H);
    await until(async () => !(await k!.claims.get('keep-eth0', k!.H)), WITHIN, 'the claim to go');
    await k.interfaces.patchMerge('keep-eth0', k.H, { metadata: { finalizers: null } });
    await addressesFreedWith(k, 'keep-eth0');
  });

  it('S137 deleting an adopted interface under a live claim releases what the claim does not ask for', async () => {
    k = await startFixtureK();
    await createClaim(k, 'keep-eth0', { reclaimPolicy: 'Retain', ipFamilies: ['IPv6', 'IPv4'] });
    await bound(k, 'keep-eth0');
    await releaseRetained(k, 'keep-eth0');
    await createClaim(k, 'keep-eth0', { reclaimPolicy: 'Retain', ipFamilies: ['IPv6'] });
    await bound(k, 'keep-eth0');
    const adopted = (await k.interfaces.get('keep-eth0', k.H))!;
    assert.deepEqual(
      adopted.spec.addresses?.map((a) => a.family),
      ['IPv6', 'IPv4'],
    );
    const keptClaims = async () => (await ipClaimUids(k!)).filter((c) => c.startsWith('keep-eth0.'));
    const [ipv6] = (await keptClaims()).filter((c) => c.startsWith('keep-eth0.cell-a-f-ipv6@'));
    await rebuiltAfterDelete(k, 'keep-eth0');
    await until(
      async () => !(await k!.ipClaims.get('keep-eth0.cell-a-f-ipv4', 'default')),
      WITHIN,
      'the IPv4 IPClaim, which the rebuilt interface does not hold, to go',
    );
    assert.equal(await k.ipAllocations.get('keep-eth0.cell-a-f-ipv4', 'default'), undefined);
    assert.deepEqual(await keptClaims(), [ipv6]);
  });
});
