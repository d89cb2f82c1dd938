/**
 * Admission: the extension point through which what composes a plane (schema admission, the
 * IPAM allocation hook, a test) sees every write before it is stored.
 *
 * Guarantees: plugins run in registration order after the server's own defaults and validation;
 * each may return a changed object or throw an ApiError to refuse the write, in which case
 * nothing is stored. A plugin may add related writes (an allocation hook binding a claim writes
 * the allocation beside it); they are committed in the same storage transaction as the request's
 * own write, or not at all. DELETE requests are admitted too (`object` is the stored object).
 * A plugin runs inside the write: it must not await.
 */
import type { KubeObject } from '../objects.ts';
import type { ResourceType } from '../resources/resource-type.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

/** Another object written with the request: stored as given (server metadata filled), or removed. */
export interface RelatedWrite {
  type: ResourceType;
  object: KubeObject;
  remove?: boolean;
}

export interface AdmissionRequest {
  operation: Operation;
  type: ResourceType;
  object: KubeObject;
  old?: KubeObject;
  subresource?: string;
  /** The requesting identity's name; absent for the server's own writes. */
  user?: string;
  /** The requesting identity's groups, when `user` is set. */
  groups?: string[];
  dryRun: boolean;
  /** `fieldValidation` of the request: Strict, Warn or Ignore. */
  fieldValidation: 'Strict' | 'Warn' | 'Ignore';
  /** What decoding the request body found (duplicate fields…); absent for the server's own writes. */
  decoding?: BodyDecoding;
  /** Plugins append warnings here; they are returned in `Warning` headers. */
  warnings: string[];
  /** Plugins append related writes here; they commit with the request's write. */
  related: RelatedWrite[];
}

/** What decoding the request body found, before the object was built (set by the handlers; reported by strict-decoding.ts). */
export interface BodyDecoding {
  /** Worded problems of the body itself: `duplicate field "…"`, `json patch unknown field "…"`. */
  problems: string[];
  /** Fields given twice, as paths (a built-in kind's unknown field is reported as unknown only). */
  duplicates: string[];
  /** The body was a patch (its problems are reported beside the patched object's unknown fields). */
  patch: boolean;
}

export interface AdmissionPlugin {
  name: string;
  admit(request: AdmissionRequest): KubeObject;
}
