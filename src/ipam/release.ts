/**
 * Releasing address space (controllers.md §8): what deleting an IPClaim, an IPAllocation or an
 * IPPool does to the rest of IPAM, and the freeing of provisioned pools left empty.
 *
 * Guarantees:
 * - a refused deletion (IpamRefusal) records no write;
 * - deleting an `Address` claim under `Delete` removes its allocation; under `Retain` the
 *   allocation stays, `Retained`, without `claimRef`, keeping its block and its name taken;
 * - a ScopeRange claim, or a pool, with allocations or child pools inside is not deleted
 *   (`RangeOccupied`, counting both; the reserved block does not count); a `Bound` allocation is
 *   deleted only through its claim (`AllocationBound`); a pool a live ScopeRange claim binds is
 *   not deleted (`PoolBound`);
 * - after a release, provisioned pools are removed upward from the one just emptied while each
 *   is empty and unbound; root pools are never removed.
 * `force` is for deletions IPAM must not refuse — those of a terminating namespace's content,
 * which the namespace's deletion waits for: the object goes, whatever still lies inside a range
 * stays, and the range goes once the last of it is released.
 */
import type { IPAllocation } from '../apis/ipam/v1alpha1/ip-allocation.ts';
import type { IPClaim } from '../apis/ipam/v1alpha1/ip-claim.ts';
import type { IPPool } from '../apis/ipam/v1alpha1/ip-pool.ts';
import { ipamRefusalMessages as messages } from '../apis/ipam/v1alpha1/refusals.ts';
import type { Ledger } from './ledger.ts';
import { IpamRefusal } from './refusal.ts';

export interface ReleaseOptions {
  force: boolean;
}

export function releaseClaim(ledger: Ledger, claim: IPClaim, { force }: ReleaseOptions): void {
  ledger.forgetClaim(claim);
  if (claim.spec.target === 'ScopeRange') {
    const poolName = claim.status?.poolRef?.name;
    if (poolName === undefined) return;
    const inside = ledger.inside(poolName);
    if (inside > 0 && !force) {
      throw new IpamRefusal('RangeOccupied', messages.rangeOccupied(poolName, inside), {
        plural: 'ipclaims',
        name: claim.metadata.name!,
      });
    }
    freePools(ledger, poolName);
    return;
  }
  const allocationName = claim.status?.boundAllocationRef?.name ?? claim.metadata.name!;
  const allocation = ledger.allocation(claim.metadata.namespace, allocationName);
  if (!allocation) return;
  if (claim.spec.reclaimPolicy === 'Retain') {
    ledger.putAllocation({ ...allocation, status: { phase: 'Retained' } });
    return;
  }
  ledger.removeAllocation(allocation);
  freePools(ledger, allocation.spec.poolRef.name);
}

export function releaseAllocation(ledger: Ledger, allocation: IPAllocation, { force }: ReleaseOptions): void {
  const name = allocation.metadata.name!;
  if (allocation.status?.phase === 'Bound' && !force) {
    const claim = allocation.status.claimRef?.name ?? name;
    throw new IpamRefusal('AllocationBound', messages.allocationBound(name, claim), {
      plural: 'ipallocations',
      name,
    });
  }
  ledger.forgetAllocation(allocation);
  freePools(ledger, allocation.spec.poolRef.name);
}

export function releasePool(ledger: Ledger, pool: IPPool): void {
  const name = pool.metadata.name!;
  const subject = { plural: 'ippools', name } as const;
  const inside = ledger.inside(name);
  if (inside > 0) throw new IpamRefusal('RangeOccupied', messages.rangeOccupied(name, inside), subject);
  const [binding] = ledger.bindingClaims(name);
  if (binding) {
    const { namespace, name: claim } = binding.metadata;
    throw new IpamRefusal('PoolBound', messages.poolBound(name, namespace!, claim!), subject);
  }
  ledger.forgetPool(pool);
  if (pool.spec.parentPoolRef) freePools(ledger, pool.spec.parentPoolRef.name);
}

/** Removes provisioned pools upward from `poolName` while each is empty and no live claim binds it. */
function freePools(ledger: Ledger, poolName: string): void {
  for (let pool = ledger.pool(poolName); pool?.spec.parentPoolRef;) {
    const name = pool.metadata.name!;
    if (ledger.inside(name) > 0 || ledger.bindingClaims(name).length > 0) return;
    ledger.removePool(pool);
    pool = ledger.pool(pool.spec.parentPoolRef.name);
  }
}
