/**
 * Retry on conflict: runs a read-modify-write until it is not refused as stale.
 *
 * Guarantees: `fn` runs at most `attempts` times; only a ConflictError (409 Conflict: the
 * resourceVersion or uid precondition no longer holds) causes another run, at once — every
 * other error, and the last conflict, is thrown to the caller. Assumes `fn` re-reads the object
 * on each run; retrying a write built from the same stale copy would only conflict again.
 */
import { isConflict } from './errors.ts';

export async function retryOnConflict<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isConflict(err) || attempt >= attempts) throw err;
    }
  }
}
