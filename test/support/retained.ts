/**
 * Heap bytes a value keeps alive, for tests that assert what memory a structure shares.
 *
 * Guarantees: `retainedBy(make)` is the growth of V8's used heap between a full collection
 * before `make` runs and one after, while its result is still held — what the result retains,
 * give or take a few KiB of the test's own allocations; compare values of megabytes, not bytes.
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
