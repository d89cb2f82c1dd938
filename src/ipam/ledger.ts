/**
 * The ledger of one IPAM operation: the classes, pools, allocations and claims of a project
 * plane as one operation sees them, what occupies each pool, and the writes the operation makes.
 *
 * Guarantees: reads see the operation's own earlier writes (a pool provisioned a step ago is
 * found, and occupies its parent); `writes` lists every pool and allocation write in the order
 * made, so applying them in order to the snapshot yields the state the reads saw last. Changes to
 * the object of the request itself (`forget…`) are seen by reads but not listed: the API server
 * writes that object.
 * Assumes: pool CIDRs were validated when the pools were written (hook.ts), so every pool parses.
 */
import type { IPAllocation } from '../apis/ipam/v1alpha1/ip-allocation.ts';
import type { IPClaim } from '../apis/ipam/v1alpha1/ip-claim.ts';
import type { IPClass } from '../apis/ipam/v1alpha1/ip-class.ts';
import type { IPPool } from '../apis/ipam/v1alpha1/ip-pool.ts';
import type { Scope } from '../apis/ipam/v1alpha1/scope.ts';
import { firstAddress, parseCidr, type Cidr } from './cidr.ts';

export interface IpamSnapshot {
  classes: readonly IPClass[];
  pools: readonly IPPool[];
  allocations: readonly IPAllocation[];
  claims: readonly IPClaim[];
}

export type IpamWrite =
  | { plural: 'ippools'; object: IPPool; remove?: boolean }
  | { plural: 'ipallocations'; object: IPAllocation; remove?: boolean };

const key = (namespace: string | undefined, name: string | undefined) => `${namespace ?? ''}/${name ?? ''}`;

export function cidrOf(pool: IPPool): Cidr {
  const cidr = parseCidr(pool.spec.cidr);
  if (!cidr) throw new Error(`IPPool "${pool.metadata.name}" has no valid CIDR: "${pool.spec.cidr}"`);
  return cidr;
}

function sameScope(a: Scope, b: Scope): boolean {
  const roles = Object.keys(a);
  return (
    roles.length === Object.keys(b).length &&
    roles.every(
      (role) =>
        b[role] !== undefined &&
        a[role].apiGroup === b[role].apiGroup &&
        a[role].kind === b[role].kind &&
        a[role].name === b[role].name,
    )
  );
}

export class Ledger {
  readonly writes: IpamWrite[] = [];
  private readonly classes: Map<string, IPClass>;
  private readonly pools: Map<string, IPPool>;
  private readonly allocations: Map<string, IPAllocation>;
  private readonly claims: Map<string, IPClaim>;

  constructor(snapshot: IpamSnapshot) {
    this.classes = new Map(snapshot.classes.map((c) => [c.metadata.name!, c]));
    this.pools = new Map(snapshot.pools.map((p) => [p.metadata.name!, p]));
    this.allocations = new Map(
      snapshot.allocations.map((a) => [key(a.metadata.namespace, a.metadata.name), a]),
    );
    this.claims = new Map(
      snapshot.claims
        .filter((c) => !c.metadata.deletionTimestamp)
        .map((c) => [key(c.metadata.namespace, c.metadata.name), c]),
    );
  }

  ipClass(name: string): IPClass | undefined {
    return this.classes.get(name);
  }

  /** Every class, by name. */
  allClasses(): IPClass[] {
    return [...this.classes.values()].sort(byName);
  }

  pool(name: string): IPPool | undefined {
    return this.pools.get(name);
  }

  allocation(namespace: string | undefined, name: string): IPAllocation | undefined {
    return this.allocations.get(key(namespace, name));
  }

  /** A claim not being deleted. */
  liveClaim(namespace: string | undefined, name: string): IPClaim | undefined {
    return this.claims.get(key(namespace, name));
  }

  /** The pools written by an operator, not provisioned (of `className` when given), by name. */
  rootPools(className?: string): IPPool[] {
    return [...this.pools.values()]
      .filter((p) => !p.spec.parentPoolRef && (className === undefined || p.spec.className === className))
      .sort(byName);
  }

  /** The provisioned pool of `className` serving exactly `scope` (the first by name, should there be two). */
  provisionedPool(className: string, scope: Scope): IPPool | undefined {
    return [...this.pools.values()]
      .sort(byName)
      .find(
        (p) => p.spec.className === className && p.spec.parentPoolRef && sameScope(p.spec.scope ?? {}, scope),
      );
  }

  /** Allocations (bound or retained) and child pools inside the pool; the reserved block does not count. */
  inside(poolName: string): number {
    return this.allocationsIn(poolName).length + this.childPools(poolName).length;
  }

  /** The live ScopeRange claims bound to the pool, by namespace and name. */
  bindingClaims(poolName: string): IPClaim[] {
    return [...this.claims.values()]
      .filter((c) => c.spec.target === 'ScopeRange' && c.status?.poolRef?.name === poolName)
      .sort((a, b) =>
        compare(key(a.metadata.namespace, a.metadata.name), key(b.metadata.namespace, b.metadata.name)),
      );
  }

  /**
   * What no new block of the pool may overlap: its allocations, its child pools, and the reserved
   * leading block of its class's `reservedPrefixLength` at the pool's first address.
   */
  occupancy(pool: IPPool): Cidr[] {
    const cidr = cidrOf(pool);
    const occupied = [
      ...this.allocationsIn(pool.metadata.name!).map((a) => parseCidr(a.spec.cidr)!),
      ...this.childPools(pool.metadata.name!).map(cidrOf),
    ];
    const reserved = this.classes.get(pool.spec.className)?.spec.reservedPrefixLength;
    if (reserved !== undefined) {
      occupied.push({ family: cidr.family, address: firstAddress(cidr), prefixLength: reserved });
    }
    return occupied;
  }

  putPool(pool: IPPool): void {
    this.pools.set(pool.metadata.name!, pool);
    this.writes.push({ plural: 'ippools', object: pool });
  }

  removePool(pool: IPPool): void {
    this.pools.delete(pool.metadata.name!);
    this.writes.push({ plural: 'ippools', object: pool, remove: true });
  }

  putAllocation(allocation: IPAllocation): void {
    this.allocations.set(key(allocation.metadata.namespace, allocation.metadata.name), allocation);
    this.writes.push({ plural: 'ipallocations', object: allocation });
  }

  removeAllocation(allocation: IPAllocation): void {
    this.allocations.delete(key(allocation.metadata.namespace, allocation.metadata.name));
    this.writes.push({ plural: 'ipallocations', object: allocation, remove: true });
  }

  forgetClaim(claim: IPClaim): void {
    this.claims.delete(key(claim.metadata.namespace, claim.metadata.name));
  }

  forgetAllocation(allocation: IPAllocation): void {
    this.allocations.delete(key(allocation.metadata.namespace, allocation.metadata.name));
  }

  forgetPool(pool: IPPool): void {
    this.pools.delete(pool.metadata.name!);
  }

  private allocationsIn(poolName: string): IPAllocation[] {
    return [...this.allocations.values()].filter((a) => a.spec.poolRef.name === poolName);
  }

  private childPools(poolName: string): IPPool[] {
    return [...this.pools.values()].filter((p) => p.spec.parentPoolRef?.name === poolName);
  }
}

function compare(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function byName(a: { metadata: { name?: string } }, b: { metadata: { name?: string } }): number {
  return compare(a.metadata.name ?? '', b.metadata.name ?? '');
}
