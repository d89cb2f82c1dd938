/**
 * Heap bytes a value keeps alive, for tests that assert what memory a structure shares.
 *
 * Guarantees: `retainedBy(make)` is the growth of V8's used heap between a full collection
 * before `make` runs and one after, while its result is still held — what the result retains,
 * give or take a few KiB of the test's own allocations; compare values of megabytes, not bytes.
 * `retainedByLongerValue(make)` is what `make`'s result retains more when the value it repeats is
 * 900 characters long than when it is one: near zero when the copies share one string, about 900
 * bytes per copy when each holds its own.
 */
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

export async function retainedBy(make: () => unknown): Promise<number> {
  gc();
  const before = v8.getHeapStatistics().used_heap_size;
  const kept: unknown = await make();
  gc();
  const after = v8.getHeapStatistics().used_heap_size;
  assert.ok(kept);
  return after - before;
}

export async function retainedByLongerValue(make: (value: string) => unknown): Promise<number> {
  const short = await retainedBy(() => make('v'));
  const long = await retainedBy(() => make('v'.repeat(900)));
  return long - short;
}
