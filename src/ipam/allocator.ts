/**
 * The allocator of controllers.md §8: binds a new IPClaim to an address block (`Address`) or to
 * its class's range for its scope (`ScopeRange`), provisioning the chain of ranges it draws from.
 *
 * Guarantees:
 * - deterministic: the result is a function of the ledger alone — classes are resolved by name,
 *   root pools are tried in name order, and a block is the lowest free aligned one;
 * - all or nothing: a refusal (IpamRefusal) is thrown before the ledger records any write, and
 *   the checks run in the spec's order — name (ClaimExists, AllocationRetained), class
 *   (ClassNotFound, NoDefaultClass, chain), scope (ScopeRolesMissing), length
 *   (PrefixLengthRejected), then space (NoOfferingPool, Exhausted);
 * - a provisioned pool has the class's block length, `parentPoolRef` = the pool it was carved
 *   from, `scope` = the claim's scope restricted to the class's roles, and the name of apis.md
 *   §7.4; a range that exists for that scope is reused, never provisioned twice.
 *
 * Worked example (the default set of apis.md §2.7, an empty plane): an `ipFamily: IPv6` claim
 * for network `vpc`, location `us-central-1` resolves `datum-endpoint-v6` → `datum-subnet-v6` →
 * `datum-network-v6`. Its block is drawn from the subnet range of the scope, which does not exist,
 * so the subnet range is drawn from the network range, which does not exist either, so that is
 * drawn from `datum-network-v6-root`: `fd20::/48` becomes `datum-network-v6-vpc`, its first /64
 * `datum-subnet-v6-vpc-us-central-1`, whose first /96 is reserved, so the claim gets
 * `fd20::1:0:0/96`.
 */
import { IPAM_API_VERSION } from '../apis/ipam/v1alpha1/group.ts';
import type { IPClaim } from '../apis/ipam/v1alpha1/ip-claim.ts';
import type { IPClass } from '../apis/ipam/v1alpha1/ip-class.ts';
import { provisionedPoolName, type IPPool } from '../apis/ipam/v1alpha1/ip-pool.ts';
import { IpamCause, ipamRefusalMessages as messages } from '../apis/ipam/v1alpha1/refusals.ts';
import type { Scope } from '../apis/ipam/v1alpha1/scope.ts';
import { bitsOf, formatCidr, lowestFreeBlock, type Cidr } from './cidr.ts';
import { cidrOf, type Ledger } from './ledger.ts';
import { IpamRefusal } from './refusal.ts';

export type ClaimStatus = NonNullable<IPClaim['status']>;

/** Binds `claim` (as admitted: defaults applied, no status); returns its status. */
export function bindClaim(ledger: Ledger, claim: IPClaim): ClaimStatus {
  const { namespace, name } = claim.metadata as { namespace: string; name: string };
  checkName(ledger, namespace, name);
  const ipClass = claimClass(ledger, claim);
  const chain = chainOf(ledger, ipClass);
  const scope = claim.spec.scope ?? {};
  checkScope(chain, scope);
  if (claim.spec.target === 'ScopeRange') {
    checkRangeLength(ipClass, claim.spec.prefixLength);
    const range = rangeOf(ledger, chain, scope);
    return { phase: 'Bound', allocatedCIDR: range.spec.cidr, poolRef: { name: range.metadata.name! } };
  }
  const length = addressLength(ipClass, claim.spec.prefixLength);
  const { pool, block } = drawFrom(ledger, chain, scope, length);
  const cidr = formatCidr(block);
  ledger.putAllocation({
    apiVersion: IPAM_API_VERSION,
    kind: 'IPAllocation',
    metadata: { name, namespace },
    spec: { poolRef: { name: pool.metadata.name! }, cidr, ipFamily: ipClass.spec.ipFamily },
    status: { phase: 'Bound', claimRef: { name } },
  });
  return {
    phase: 'Bound',
    allocatedCIDR: cidr,
    poolRef: { name: pool.metadata.name! },
    boundAllocationRef: { name },
  };
}

/** Each claim name maps to at most one allocation, bound or retained. */
function checkName(ledger: Ledger, namespace: string, name: string): void {
  const subject = { plural: 'ipclaims', name } as const;
  if (ledger.liveClaim(namespace, name)) {
    throw new IpamRefusal(IpamCause.ClaimExists, messages.claimExists(name), subject);
  }
  if (ledger.allocation(namespace, name)) {
    throw new IpamRefusal(IpamCause.AllocationRetained, messages.allocationRetained(name), subject, [
      { message: name },
    ]);
  }
}

/** `className`'s class, or the first by name of the `ipFamily` classes marked default. */
function claimClass(ledger: Ledger, claim: IPClaim): IPClass {
  const { className, ipFamily } = claim.spec;
  if (className !== undefined) {
    const found = ledger.ipClass(className);
    if (!found) throw new IpamRefusal(IpamCause.ClassNotFound, messages.classNotFound(className));
    return found;
  }
  const found = ledger.allClasses().find((c) => c.spec.ipFamily === ipFamily && c.spec.default === true);
  if (!found) throw new IpamRefusal(IpamCause.NoDefaultClass, messages.noDefaultClass(String(ipFamily)));
  return found;
}

/**
 * `chain(K)`: the class, then its parent, and so on. Each class must exist, keep the family,
 * hand out longer blocks than its parent, and appear once.
 */
function chainOf(ledger: Ledger, ipClass: IPClass): IPClass[] {
  const chain = [ipClass];
  for (let child = ipClass; child.spec.parentClassName !== undefined;) {
    const parentName = child.spec.parentClassName;
    const names = chain.map((c) => c.metadata.name!);
    if (names.includes(parentName)) {
      throw new IpamRefusal(IpamCause.ClassNotFound, messages.classCycle([...names, parentName]));
    }
    const parent = ledger.ipClass(parentName);
    if (!parent) {
      throw new IpamRefusal(
        IpamCause.ClassNotFound,
        messages.parentClassNotFound(child.metadata.name!, parentName),
      );
    }
    if (parent.spec.ipFamily !== child.spec.ipFamily) {
      throw new IpamRefusal(
        IpamCause.ClassNotFound,
        messages.classFamilyChange(
          child.metadata.name!,
          child.spec.ipFamily,
          parentName,
          parent.spec.ipFamily,
        ),
      );
    }
    if (child.spec.prefixLength <= parent.spec.prefixLength) {
      throw new IpamRefusal(
        IpamCause.PrefixLengthRejected,
        messages.classNotLongerThanParent(
          child.metadata.name!,
          child.spec.prefixLength,
          parentName,
          parent.spec.prefixLength,
        ),
      );
    }
    chain.push(parent);
    child = parent;
  }
  return chain;
}

/** Every role of `required(K)` (the union of the chain's scopeRoles) must be in the scope. */
function checkScope(chain: IPClass[], scope: Scope): void {
  const required = [...new Set(chain.flatMap((c) => c.spec.scopeRoles ?? []))].sort();
  const missing = required.filter((role) => scope[role] === undefined);
  if (missing.length === 0) return;
  const message = messages.scopeRolesMissing(chain[0].metadata.name!, required, missing);
  throw new IpamRefusal(
    IpamCause.ScopeRolesMissing,
    message,
    undefined,
    missing.map((role) => ({ message, field: `spec.scope.${role}` })),
  );
}

/** An Address claim's block length: the class's, or a longer one up to the family's width. */
function addressLength(ipClass: IPClass, requested: number | undefined): number {
  const min = ipClass.spec.prefixLength;
  const max = bitsOf(ipClass.spec.ipFamily);
  const length = requested ?? min;
  if (length < min || length > max) {
    throw new IpamRefusal(
      IpamCause.PrefixLengthRejected,
      messages.prefixLengthRejected(length, ipClass.metadata.name!, min, max),
    );
  }
  return length;
}

/** A ScopeRange claim binds the class's range as it is: a length, if given, must be the class's. */
function checkRangeLength(ipClass: IPClass, requested: number | undefined): void {
  const length = ipClass.spec.prefixLength;
  if (requested !== undefined && requested !== length) {
    throw new IpamRefusal(
      IpamCause.PrefixLengthRejected,
      messages.prefixLengthRejected(requested, ipClass.metadata.name!, length, length),
    );
  }
}

/** `S|K`: the scope restricted to the class's roles. */
function restrict(scope: Scope, ipClass: IPClass): Scope {
  return Object.fromEntries((ipClass.spec.scopeRoles ?? []).map((role) => [role, scope[role]]));
}

/** `rangeOf(chain[0], S)`: the provisioned pool of the class for the scope, provisioned if absent. */
function rangeOf(ledger: Ledger, chain: IPClass[], scope: Scope): IPPool {
  const ipClass = chain[0];
  const className = ipClass.metadata.name!;
  const restricted = restrict(scope, ipClass);
  const existing = ledger.provisionedPool(className, restricted);
  if (existing) return existing;
  const { pool: source, block } = drawFrom(ledger, chain, scope, ipClass.spec.prefixLength);
  const roles = ipClass.spec.scopeRoles ?? [];
  const name = provisionedPoolName(className, roles, restricted, (n) => ledger.pool(n) !== undefined);
  if (ledger.pool(name)) throw new Error(`IPPool name "${name}" for IPClass "${className}" is taken`);
  const pool: IPPool = {
    apiVersion: IPAM_API_VERSION,
    kind: 'IPPool',
    metadata: { name },
    spec: {
      className,
      cidr: formatCidr(block),
      parentPoolRef: { name: source.metadata.name! },
      scope: restricted,
    },
  };
  ledger.putPool(pool);
  return pool;
}

/**
 * `drawFrom(chain[0], S)`: a block of `length` from the parent class's range for the scope, or,
 * for a class without parent, from the first of its root pools (by name) that has one.
 */
function drawFrom(
  ledger: Ledger,
  chain: IPClass[],
  scope: Scope,
  length: number,
): { pool: IPPool; block: Cidr } {
  if (chain.length > 1) {
    const pool = rangeOf(ledger, chain.slice(1), scope);
    const block = freeBlock(ledger, pool, length);
    if (!block) throw exhausted(pool, length);
    return { pool, block };
  }
  const className = chain[0].metadata.name!;
  const roots = ledger.rootPools(className);
  if (roots.length === 0) throw new IpamRefusal(IpamCause.NoOfferingPool, messages.noOfferingPool(className));
  for (const pool of roots) {
    const block = freeBlock(ledger, pool, length);
    if (block) return { pool, block };
  }
  throw exhausted(roots.at(-1)!, length);
}

function freeBlock(ledger: Ledger, pool: IPPool, length: number): Cidr | undefined {
  return lowestFreeBlock(cidrOf(pool), length, ledger.occupancy(pool));
}

function exhausted(pool: IPPool, length: number): IpamRefusal {
  const name = pool.metadata.name!;
  return new IpamRefusal(IpamCause.Exhausted, messages.exhausted(name, length), { plural: 'ippools', name });
}
