/**
 * Applying one manifest to a member (propagation.md §5.2, §5.3): create it when absent, update it
 * through the retain merge when present and writable, and write nothing when the member already
 * holds what the manifest says.
 *
 * Guarantees:
 * - the observed copy is read from the member's store while that store has listed, and from the
 *   member itself otherwise; a stale read costs one retry, never a wrong write: a create that
 *   answers AlreadyExists, and an update that answers Conflict or NotFound, re-read the object
 *   live and take the path it then calls for (at most `MAX_ATTEMPTS` times);
 * - an existing object is written only if it is managed or the manifest says `overwrite`
 *   (conflict.ts); otherwise `AbortError`, and nothing is written;
 * - writes are plain PUTs of the main resource, so a member's status subresource is untouched;
 * - `beforeCreate` runs before every create (the namespace ordering of §5.5) and its failures are
 *   its own business: the create then names the real cause.
 */
import { isAlreadyExists, isConflict, isNotFound } from '../../client/errors.ts';
import type { KubeObject, ResourceClient } from '../../client/types.ts';
import { AbortError, mayWrite } from './conflict.ts';
import { isNoOp, retained } from './retain-merge.ts';

export const MAX_ATTEMPTS = 5;

export type ApplyOutcome = 'created' | 'updated' | 'unchanged';

/** One kind on one member, as apply and deletion reach it. */
export interface MemberKind {
  client: ResourceClient;
  /** The copy as the member's store holds it, or as the member answers while the store lists. */
  observed(namespace: string | undefined, name: string): Promise<KubeObject | undefined>;
}

export interface ApplyOptions {
  /** The cluster's name, for the abort message. */
  cluster: string;
  beforeCreate?: () => Promise<void>;
}

export async function applyManifest(
  manifest: KubeObject,
  kind: MemberKind,
  options: ApplyOptions,
): Promise<ApplyOutcome> {
  const { namespace, name } = manifest.metadata;
  let observed = await kind.observed(namespace, name!);
  let lastError: unknown;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    try {
      if (!observed) {
        await options.beforeCreate?.().catch(() => undefined);
        await kind.client.create(manifest);
        return 'created';
      }
      return await writeOver(observed, manifest, kind, options.cluster);
    } catch (err) {
      if (!isAlreadyExists(err) && !isConflict(err) && !isNotFound(err)) throw err;
      // A NotFound from a create is the namespace missing, not a stale view: give it back.
      if (isNotFound(err) && !observed) throw err;
      lastError = err;
      observed = await kind.client.get(name!, namespace);
    }
  }
  throw lastError;
}

/** The update path: refuse, skip, or PUT the retain merge of `manifest` over `observed`. */
export async function writeOver(
  observed: KubeObject,
  manifest: KubeObject,
  kind: MemberKind,
  cluster: string,
): Promise<ApplyOutcome> {
  if (!mayWrite(observed, manifest)) throw new AbortError(manifest, cluster);
  const desired = retained(manifest, observed);
  if (isNoOp(desired, observed)) return 'unchanged';
  await kind.client.update(desired);
  return 'updated';
}
