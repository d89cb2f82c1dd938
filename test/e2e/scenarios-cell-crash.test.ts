/**
 * What a killed cell process leaves in IPAM (scenarios.md §16, S134–S135), and what the claim
 * controller does with IPClaims named before they carried the cell (`<claim>-<discriminator>`).
 * Fixture K; the state a kill leaves is written by the test while no controller runs, then the
 * controllers start as a restarted process would.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { CELL_LABEL, type IPClaim } from '../../src/apis/ipam/v1alpha1/ip-claim.ts';
import { networkLocationScope } from '../../src/apis/ipam/v1alpha1/scope.ts';
import { NETWORKINTERFACECLAIM_RELEASE_FINALIZER } from '../../src/apis/networking/v1alpha/network-interface-claim.ts';
import {
  ALLOCATION_CLAIM_ANNOTATION,
  NETWORKINTERFACE_RELEASE_FINALIZER,
} from '../../src/apis/networking/v1alpha/network-interface.ts';
import {
  bound,
  CELL_A,
  claimCondition,
  createClaim,
  startFixtureK,
  until,
  US_CENTRAL_1,
  VPC,
  WITHIN,
  type CellScenario,
} from '../support/cell-fixtures.ts';

let k: CellScenario | undefined;
afterEach(async () => {
  await k?.stop();
  k = undefined;
});

/** An IPv6 IPClaim as the claim controller makes it (or, with `cell` undefined, as older versions did). */
function familyIpClaim(
  fixture: CellScenario,
  name: string,
  reclaimPolicy: 'Delete' | 'Retain',
  cell?: string,
) {
  return fixture.ipClaims.create({
    metadata: { name, namespace: 'default', ...(cell && { labels: { [CELL_LABEL]: cell } }) },
    spec: { ipFamily: 'IPv6', reclaimPolicy, scope: networkLocationScope(VPC, US_CENTRAL_1) },
  });
}

/** An interface as the claim controller builds it, holding `cidr`, minted under claim `owner`. */
function mintedInterface(
  fixture: CellScenario,
  name: string,
  owner: string,
  cidr: string,
  claimRef?: string,
) {
  return fixture.interfaces.create({
    metadata: {
      name,
      namespace: fixture.H,
      annotations: { [ALLOCATION_CLAIM_ANNOTATION]: owner },
      finalizers: [NETWORKINTERFACE_RELEASE_FINALIZER],
    },
    spec: {
      network: { name: VPC },
      ...(claimRef && { claimRef: { name: claimRef } }),
      interfaceName: 'eth0',
      attachmentMode: 'Netns',
      reclaimPolicy: 'Delete',
      mtu: 1460,
      addresses: [{ family: 'IPv6', address: cidr, primary: true, class: '' }],
    },
  });
}

const gone = async (fixture: CellScenario, kind: 'ipClaims' | 'ipAllocations', name: string) =>
  (await fixture[kind].get(name, 'default')) === undefined;

describe('crash safety of the cell controllers', () => {
  for (const reclaimPolicy of ['Delete', 'Retain'] as const) {
    it(`S134 a ${reclaimPolicy} claim killed mid-allocation and deleted releases its IPClaims`, async () => {
      k = await startFixtureK({ controllers: false });
      // What the process did before the kill: the claim's finalizer, then its IPClaim; no interface.
      await k.claims.create({
        metadata: { name: 'half-0', namespace: k.H, finalizers: [NETWORKINTERFACECLAIM_RELEASE_FINALIZER] },
        spec: { network: { name: VPC }, ipFamilies: ['IPv6'], reclaimPolicy },
      });
      const ipClaim = 'half-0.cell-a-f-ipv6';
      const made = await familyIpClaim(k, ipClaim, reclaimPolicy, CELL_A);
      assert.ok(made.status?.allocatedCIDR);
      await k.claims.delete('half-0', k.H);

      await k.startCell();
      await until(
        async () =>
          (await k!.claims.get('half-0', k!.H)) === undefined &&
          (await gone(k!, 'ipClaims', ipClaim)) &&
          (await gone(k!, 'ipAllocations', ipClaim)),
        WITHIN,
        `the claim, ${ipClaim} and any retained IPAllocation to go`,
      );
    });
  }

  it('S134 a claim of the name of a retained interface releases none of its IPClaims', async () => {
    k = await startFixtureK();
    await createClaim(k, 'keep-0', { reclaimPolicy: 'Retain' });
    await bound(k, 'keep-0');
    await k.claims.delete('keep-0', k.H);
    await until(
      async () => (await k!.interfaces.get('keep-0', k!.H))?.status?.phase === 'Available',
      WITHIN,
      'keep-0 to be Available',
    );
    // A new claim of that name that cannot adopt the retained interface, then deleted.
    await createClaim(k, 'keep-0', { reclaimPolicy: 'Delete' });
    await claimCondition(k, 'keep-0', 'Ready', 'ReclaimPolicyMismatch', 'False');
    await k.claims.delete('keep-0', k.H);
    await until(async () => (await k!.claims.get('keep-0', k!.H)) === undefined, WITHIN, 'keep-0 to go');
    assert.ok(
      await k.ipClaims.get('keep-0.cell-a-f-ipv6', 'default'),
      'the retained interface keeps its IPClaim',
    );
  });

  it('S135 a retained address whose release was killed between its two deletes is freed on restart', async () => {
    k = await startFixtureK({ controllers: false });
    const ipClaim = 'keep-1.cell-a-f-ipv6';
    const made = await familyIpClaim(k, ipClaim, 'Retain', CELL_A);
    const cidr = made.status!.allocatedCIDR!;
    await mintedInterface(k, 'keep-1', 'keep-1', cidr);
    await k.interfaces.delete('keep-1', k.H);
    // The killed release had deleted the IPClaim; IPAM retains its allocation.
    await k.ipClaims.delete(ipClaim, 'default');
    assert.ok(await k.ipAllocations.get(ipClaim, 'default'), 'the allocation is retained');

    await k.startCell();
    await until(
      async () => (await gone(k!, 'ipAllocations', ipClaim)) && !(await k!.interfaces.get('keep-1', k!.H)),
      WITHIN,
      `the retained IPAllocation ${ipClaim} and the interface to go`,
    );
  });

  it('keeps an interface minted before IPClaims named the cell on its IPClaim, and releases it', async () => {
    k = await startFixtureK({ controllers: false });
    const legacy: IPClaim = await familyIpClaim(k, 'old-0-f-ipv6', 'Delete');
    await mintedInterface(k, 'old-0', 'old-0', legacy.status!.allocatedCIDR!, 'old-0');
    await k.claims.create({
      metadata: { name: 'old-0', namespace: k.H, finalizers: [NETWORKINTERFACECLAIM_RELEASE_FINALIZER] },
      spec: { network: { name: VPC }, ipFamilies: ['IPv6'] },
    });
    await k.startCell();
    await claimCondition(k, 'old-0', 'Allocated', 'Allocated', 'True');
    assert.equal(await k.ipClaims.get('old-0.cell-a-f-ipv6', 'default'), undefined, 'nothing new allocated');

    await k.claims.delete('old-0', k.H);
    await until(
      async () => !(await k!.interfaces.get('old-0', k!.H)) && (await gone(k!, 'ipClaims', 'old-0-f-ipv6')),
      WITHIN,
      'the interface and its IPClaim under the old name to go',
    );
  });

  it("never takes an IPClaim under the old name that holds another address for this interface's", async () => {
    k = await startFixtureK({ controllers: false });
    const other = await familyIpClaim(k, 'api-0-f-ipv6', 'Delete'); // another cell's, made before the upgrade
    const ours = await familyIpClaim(k, 'api-0.cell-a-f-ipv6', 'Delete', CELL_A);
    await k.ipClaims.delete('api-0.cell-a-f-ipv6', 'default'); // lost: the interface is unbacked
    await mintedInterface(k, 'api-0', 'api-0', ours.status!.allocatedCIDR!, 'api-0');
    await k.claims.create({
      metadata: { name: 'api-0', namespace: k.H, finalizers: [NETWORKINTERFACECLAIM_RELEASE_FINALIZER] },
      spec: { network: { name: VPC }, ipFamilies: ['IPv6'] },
    });
    await k.startCell();
    const claim = await claimCondition(k, 'api-0', 'Allocated', 'AddressAllocationMissing', 'False');
    assert.match(
      claim.status!.conditions!.find((c) => c.type === 'Allocated')!.message,
      /is held by no allocation/,
    );
    await k.claims.delete('api-0', k.H);
    await until(async () => !(await k!.interfaces.get('api-0', k!.H)), WITHIN, 'the interface to go');
    assert.equal(
      (await k.ipClaims.get('api-0-f-ipv6', 'default'))?.status?.allocatedCIDR,
      other.status!.allocatedCIDR,
      "the other cell's IPClaim is untouched",
    );
  });
});
