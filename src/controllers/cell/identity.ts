/**
 * Location identity (controllers.md §9): which location this cell serves, resolved from the
 * ServingLocations delivered to it and an optional configured name, and held for the other cell
 * controllers.
 *
 * Guarantees: `resolveIdentity` is a pure function of the delivered names and the configured
 * one, following §9's table exactly; the IdentityHolder is unknown (`current()` undefined) until
 * its first answer, so no claim is judged before the ServingLocation store has been read;
 * `replace` tells its listeners only when the answer differs from the one held.
 */
import { ClaimReason, identityMessages } from '../../apis/networking/v1alpha/claim-refusals.ts';

export const IdentitySource = { Delivered: 'Delivered', Configured: 'Configured' } as const;
export type IdentitySource = (typeof IdentitySource)[keyof typeof IdentitySource];

export type LocationIdentity =
  | {
      resolved: true;
      location: string;
      source: IdentitySource;
      /** A configured name that differs from the delivered one (the delivered one wins). */
      mismatch?: string;
    }
  | {
      resolved: false;
      reason: typeof ClaimReason.NoLocationIdentity | typeof ClaimReason.AmbiguousLocationIdentity;
      message: string;
    };

/** The identity §9 step 1 gives for the delivered ServingLocation names and a configured name. */
export function resolveIdentity(delivered: readonly string[], configured?: string): LocationIdentity {
  const fallback = configured || undefined;
  if (delivered.length === 1) {
    const location = delivered[0];
    return fallback !== undefined && fallback !== location
      ? { resolved: true, location, source: IdentitySource.Delivered, mismatch: fallback }
      : { resolved: true, location, source: IdentitySource.Delivered };
  }
  if (fallback !== undefined)
    return { resolved: true, location: fallback, source: IdentitySource.Configured };
  return delivered.length > 1
    ? {
        resolved: false,
        reason: ClaimReason.AmbiguousLocationIdentity,
        message: identityMessages.ambiguous(delivered.length),
      }
    : { resolved: false, reason: ClaimReason.NoLocationIdentity, message: identityMessages.none };
}

function sameIdentity(a: LocationIdentity | undefined, b: LocationIdentity): boolean {
  if (!a || a.resolved !== b.resolved) return false;
  if (a.resolved && b.resolved)
    return a.location === b.location && a.source === b.source && a.mismatch === b.mismatch;
  return !a.resolved && !b.resolved && a.reason === b.reason && a.message === b.message;
}

/** The current identity of one cell, shared by its controllers. */
export class IdentityHolder {
  private held: LocationIdentity | undefined;
  private readonly listeners = new Set<() => void>();

  /** The identity, or undefined before the identity controller's first answer. */
  current(): LocationIdentity | undefined {
    return this.held;
  }

  /** The resolved location, if any. */
  location(): string | undefined {
    return this.held?.resolved ? this.held.location : undefined;
  }

  /** Holds `next`; true (and every listener told) when it differs from what was held. */
  replace(next: LocationIdentity): boolean {
    if (sameIdentity(this.held, next)) return false;
    this.held = next;
    for (const listener of [...this.listeners]) listener();
    return true;
  }

  /** Calls `listener` after every change; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
