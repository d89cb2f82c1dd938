/**
 * The range-hold step shared by the network (its /48) and the networkcontext (its /64)
 * controllers (controllers.md §3 and §4): a release finalizer on the object, one ScopeRange
 * IPClaim with a deterministic name, a refusal reported on `IPAMAllocated` and retried by the
 * backstop, and on deletion the range given back before the finalizer goes.
 *
 * Guarantees:
 * - a refusal is reported with the IPAM failure reasons every kind shares (ipam-failures.ts:
 *   ProjectNamespaceNotFound, RangeUnsupported, RangeOccupied), in the kind's own words;
 * - `holdRange` puts the release finalizer on the object before it asks IPAM for anything, so a
 *   range is never held by an object that could go without giving it back; when IPAM refuses, it
 *   reports the refusal (reason and message from ipam-access.ts) and answers the backstop;
 * - `releaseRange` releases the claim status names (else the deterministic one) and removes the
 *   finalizer only once IPAM has let go; while it cannot, it reports `rangeOccupied` and answers
 *   the backstop. It does nothing for an object without the finalizer.
 * What to do with a held range (publish it, report it) stays with each controller.
 */
import type { NetworkPrefixRef } from '../../apis/common/refs.ts';
import type { Scope } from '../../apis/ipam/v1alpha1/scope.ts';
import { IpamFailureReason } from '../../apis/networking/v1alpha/ipam-failures.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import { backstop } from '../../runtime/backstop.ts';
import type { DesiredCondition } from '../../runtime/conditions.ts';
import type { Outcome } from '../../runtime/controller.ts';
import { ensureFinalizer, hasFinalizer, removeFinalizer } from '../../runtime/finalizer.ts';
import {
  heldClaim,
  holdScopeRange,
  releaseScopeRange,
  type HeldClaimRef,
  type IpamAccess,
} from './ipam-access.ts';

/** How one kind holds its range. */
export interface RangeHold<T extends KubeObject> {
  /** The object's own client (its finalizer). */
  client: ResourceClient<T>;
  ipam: IpamAccess;
  /** The finalizer kept until the range is given back. */
  finalizer: string;
  className: string;
  /** The deterministic claim name, from the object's UID. */
  claimName: (object: T) => string;
  /** The claim status names, if any. */
  heldRef: (object: T) => HeldClaimRef | undefined;
  scope: (object: T) => Scope;
  /** The kind's wording: `subject` is `this network` or `this location`; `rangeOccupied` the RangeOccupied message. */
  messages: { subject: string; rangeOccupied: (detail: string) => string };
  /** Writes `IPAMAllocated` (and Ready following it). */
  reportAllocated: (object: T, ipamAllocated: Omit<DesiredCondition, 'type'>) => Promise<void>;
}

export type RangeHoldResult<T> =
  { held: true; object: T; cidr: string; ref: NetworkPrefixRef } | { held: false; outcome: Outcome };

/** Holds the object's range; a refusal is reported and answers the backstop. */
export async function holdRange<T extends KubeObject>(
  stored: T,
  range: RangeHold<T>,
): Promise<RangeHoldResult<T>> {
  const object = await ensureFinalizer(range.client, stored, range.finalizer);
  const namespace = object.metadata.namespace!;
  const claimName = range.claimName(object);
  const hold = await holdScopeRange(range.ipam, {
    className: range.className,
    claimName,
    namespace,
    scope: range.scope(object),
    subject: range.messages.subject,
    namespaceReason: IpamFailureReason.ProjectNamespaceNotFound,
    unsupportedReason: IpamFailureReason.RangeUnsupported,
  });
  if (!hold.held) {
    await range.reportAllocated(object, { status: 'False', reason: hold.reason, message: hold.message });
    return { held: false, outcome: backstop() };
  }
  const ref = { project: range.ipam.project, namespace, claimName, poolName: hold.pool };
  return { held: true, object, cidr: hold.cidr, ref };
}

/**
 * Gives a deleting object's range back, then removes its finalizer; `askIpam` false (no class
 * was ever configured) skips straight to the finalizer.
 */
export async function releaseRange<T extends KubeObject>(
  object: T,
  range: Omit<RangeHold<T>, 'ipam'> & { ipam: Pick<IpamAccess, 'client'> },
  askIpam = true,
): Promise<Outcome | void> {
  if (!hasFinalizer(object, range.finalizer)) return;
  if (askIpam) {
    const ref = heldClaim(range.heldRef(object), object.metadata.namespace!, range.claimName(object));
    const release = await releaseScopeRange(range.ipam.client, ref.namespace, ref.claimName);
    if (!release.released) {
      await range.reportAllocated(object, {
        status: 'False',
        reason: IpamFailureReason.RangeOccupied,
        message: range.messages.rangeOccupied(release.message),
      });
      return backstop();
    }
  }
  await removeFinalizer(range.client, object, range.finalizer);
}
