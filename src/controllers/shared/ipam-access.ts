/**
 * IPAM access (controllers.md §1.3, §1.4): how controllers read IPAM's refusals, and how the
 * network and networkcontext controllers hold and give back the range of a scope (a network's
 * /48, a location's /64) through an IPClaim with `target: ScopeRange`.
 *
 * Guarantees:
 * - a refusal is classified by its causes' types, never by its message; the message built for it
 *   states each fact once;
 * - "namespace missing" is only a 404 whose details name exactly the project namespace as a
 *   core `namespaces` object (an empty group is also an absent one: Go omits it);
 * - `holdScopeRange` reads the claim from the store first and creates it only when absent; after a
 *   refused create it reads the claim from the API once, so a lost race or a store behind a
 *   duplicate uses the claim that exists instead of reporting a conflict;
 * - `releaseScopeRange` treats a claim already gone as released, and reports a 409 as "occupied"
 *   with IPAM's message; any other error is thrown for the caller's retry.
 * Assumes: IPAM is served in the plane the client addresses (the project plane).
 */
import { ipClaimKind, type IPClaim } from '../../apis/ipam/v1alpha1/ip-claim.ts';
import { IpamCause } from '../../apis/ipam/v1alpha1/refusals.ts';
import type { Scope } from '../../apis/ipam/v1alpha1/scope.ts';
import {
  ipamFailureMessages,
  IpamFailureReason,
  requestDescription,
} from '../../apis/networking/v1alpha/ipam-failures.ts';
import { StatusError, type StatusCause } from '../../client/errors.ts';
import type { ResourceClient } from '../../client/types.ts';
import type { ObjectStore } from '../../runtime/informer-contract.ts';
import type { RunningInformer } from '../../runtime/informer.ts';
import type { EngagedPlane } from '../../runtime/planes.ts';
import { resourceIdOf } from '../../runtime/resource-ids.ts';

export interface IpamFailure {
  reason: IpamFailureReason;
  message: string;
}

const EXHAUSTED: ReadonlySet<string> = new Set([IpamCause.Exhausted]);
const CONFLICTING: ReadonlySet<string> = new Set([IpamCause.AllocationRetained, IpamCause.ClaimExists]);
const REJECTED: ReadonlySet<string> = new Set([
  IpamCause.ClassNotFound,
  IpamCause.NoDefaultClass,
  IpamCause.NoOfferingPool,
  IpamCause.PrefixLengthRejected,
  IpamCause.ScopeRolesMissing,
  IpamCause.NoProjectScope,
]);
const INSUFFICIENT_STORAGE = 507;

/** The reason and message of a refused IPAM create, for a request described as `what`. */
export function classifyIpamFailure(err: unknown, what: string): IpamFailure {
  if (!(err instanceof StatusError)) {
    return {
      reason: IpamFailureReason.AllocationFailed,
      message: ipamFailureMessages.failed(what, errorText(err)),
    };
  }
  const causes = err.causes.map(causeType);
  const has = (set: ReadonlySet<string>): boolean => causes.some((cause) => set.has(cause));
  if (has(EXHAUSTED) || (err.code === INSUFFICIENT_STORAGE && causes.length === 0)) {
    const pool = err.status.details?.name;
    return {
      reason: IpamFailureReason.AddressPoolExhausted,
      message: pool
        ? ipamFailureMessages.exhaustedPool(what, pool)
        : ipamFailureMessages.exhausted(what, err.message),
    };
  }
  if (has(CONFLICTING)) {
    return {
      reason: IpamFailureReason.RetainedAddressConflict,
      message: ipamFailureMessages.conflict(what, err.message),
    };
  }
  if (has(REJECTED)) {
    return {
      reason: IpamFailureReason.AddressAllocationRejected,
      message: ipamFailureMessages.rejected(what, err.message),
    };
  }
  return {
    reason: IpamFailureReason.AllocationFailed,
    message: ipamFailureMessages.failed(what, err.message),
  };
}

/** True only for the API server's answer to a create in a namespace that does not exist. */
export function isProjectNamespaceMissing(err: unknown, namespace: string): boolean {
  if (!(err instanceof StatusError) || err.code !== 404) return false;
  const details = err.status.details;
  return (
    details !== undefined &&
    (details.group ?? '') === '' &&
    details.kind === 'namespaces' &&
    details.name === namespace
  );
}

/**
 * A cause's type: apis.md §2.6 names it `type`; Kubernetes serialises a cause's type as `reason`.
 * Either spelling is read, `type` first.
 */
function causeType(cause: StatusCause & { type?: string }): string {
  return cause.type ?? cause.reason ?? '';
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Where a controller reaches IPAM for one project: the project plane's IPClaims. */
export interface IpamAccess {
  project: string;
  claims: ObjectStore<IPClaim>;
  client: ResourceClient<IPClaim>;
}

/** A project plane's IPAM as a range-holding controller reads it: its IPClaim informer, and the access over it. */
export function planeIpam(plane: EngagedPlane): { informer: RunningInformer<IPClaim>; access: IpamAccess } {
  const id = resourceIdOf(ipClaimKind);
  const informer = plane.informer<IPClaim>(id);
  return {
    informer,
    access: { project: plane.project, claims: informer.store, client: plane.client<IPClaim>(id) },
  };
}

export interface ScopeRangeRequest {
  className: string;
  claimName: string;
  namespace: string;
  scope: Scope;
  /** `this network` or `this location`. */
  subject: string;
  namespaceReason: IpamFailureReason;
  unsupportedReason: IpamFailureReason;
}

export type ScopeRangeHold = { held: true; cidr: string; pool: string } | ({ held: false } & IpamFailure);

export async function holdScopeRange(
  access: IpamAccess,
  request: ScopeRangeRequest,
): Promise<ScopeRangeHold> {
  const { claimName, namespace, subject } = request;
  const found = access.claims.get(namespace, claimName) ?? (await createScopeRangeClaim(access, request));
  if ('held' in found) return found;
  if (found.spec.target !== 'ScopeRange') {
    return {
      held: false,
      reason: request.unsupportedReason,
      message: ipamFailureMessages.rangeUnsupported(claimName, subject),
    };
  }
  const cidr = found.status?.allocatedCIDR ?? '';
  if (cidr === '') {
    return {
      held: false,
      reason: IpamFailureReason.AllocationFailed,
      message: ipamFailureMessages.noRangeAllocated(subject, found.status?.phase ?? ''),
    };
  }
  return { held: true, cidr, pool: found.status?.poolRef?.name ?? '' };
}

/** Where a held range's claim is: `{project, namespace, claimName}` as status names it. */
export interface HeldClaimRef {
  project?: string;
  namespace?: string;
  claimName?: string;
}

/**
 * The claim a release targets: the one status names (its namespace defaulting to the object's),
 * else the deterministic name the hold would have used.
 */
export function heldClaim(
  ref: HeldClaimRef | undefined,
  namespace: string,
  deterministicName: string,
): { namespace: string; claimName: string } {
  if (ref?.project && ref.claimName)
    return { namespace: ref.namespace || namespace, claimName: ref.claimName };
  return { namespace, claimName: deterministicName };
}

/** Creates the claim; a refusal is either reported, or resolved by the claim that exists. */
async function createScopeRangeClaim(
  access: IpamAccess,
  request: ScopeRangeRequest,
): Promise<IPClaim | ({ held: false } & IpamFailure)> {
  const { className, claimName, namespace, scope } = request;
  try {
    return await access.client.create({
      metadata: { name: claimName, namespace },
      spec: { className, target: 'ScopeRange', scope },
    });
  } catch (err) {
    if (isProjectNamespaceMissing(err, namespace)) {
      return {
        held: false,
        reason: request.namespaceReason,
        message: ipamFailureMessages.rangeNamespaceNotFound(access.project, namespace),
      };
    }
    const existing = await access.client.get(claimName, namespace);
    if (existing) return existing;
    return { held: false, ...classifyIpamFailure(err, requestDescription({ className })) };
  }
}

export type ScopeRangeRelease = { released: true } | { released: false; message: string };

export async function releaseScopeRange(
  client: ResourceClient<IPClaim>,
  namespace: string,
  claimName: string,
): Promise<ScopeRangeRelease> {
  try {
    await client.delete(claimName, namespace);
    return { released: true };
  } catch (err) {
    if (err instanceof StatusError && err.code === 409) {
      return { released: false, message: err.message };
    }
    throw err;
  }
}
