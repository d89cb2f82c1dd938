/**
 * `forEachConcurrently(items, limit, fn)`: `fn` for every item, at most `limit` at a time, in the
 * items' order of starting — for a chain of independent requests that would otherwise wait on
 * each other's round trips (the fleet's seed: a thousand Projects, then their Networks).
 *
 * Guarantees: every item is started exactly once unless a call fails; after the first failure no
 * further item is started, and the returned promise rejects with that first error only once every
 * call already started has settled, so nothing is still writing when the caller hears of it.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new Error(`limit must be a positive integer, got ${limit}`);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < items.length) {
      const item = items[next++];
      try {
        await fn(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw failure.error;
}
