/**
 * A refusal of the embedded IPAM, in domain terms: which rule refused (an IPAM cause of
 * apis.md §2.6, or one of the three "range occupied" answers), the message, the object the
 * refusal is about, and the fields it blames. The allocation hook turns it into a Status.
 *
 * Guarantees: an operation that throws an IpamRefusal has written nothing.
 */
import type { IpamCause } from '../apis/ipam/v1alpha1/refusals.ts';

export type RefusalRule =
  | Exclude<IpamCause, 'NoProjectScope'>
  /** A ScopeRange claim or a pool with allocations or child pools inside. */
  | 'RangeOccupied'
  /** A `Bound` IPAllocation, deleted directly rather than through its claim. */
  | 'AllocationBound'
  /** A pool a live ScopeRange claim binds. */
  | 'PoolBound';

/** The object a refusal names in its Status `details`. */
export interface RefusalSubject {
  plural: 'ipclaims' | 'ipallocations' | 'ippools';
  name: string;
}

export class IpamRefusal extends Error {
  constructor(
    readonly rule: RefusalRule,
    message: string,
    readonly subject?: RefusalSubject,
    /** The causes to report; by default one carrying the message. */
    readonly causes: { message: string; field?: string }[] = [{ message }],
  ) {
    super(message);
    this.name = 'IpamRefusal';
  }
}
