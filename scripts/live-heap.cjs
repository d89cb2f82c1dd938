/**
 * live-heap: what each thread of a fleet really holds, as opposed to what its heap has grown to.
 * A preload for the fleet process of bench/fleet (not loaded by netpresence itself):
 *
 *   LIVE_HEAP_DIR=/tmp/heap NODE_OPTIONS="--require ./scripts/live-heap.cjs" \
 *     npm run bench:fleet -- --projects 1000 --locations 10
 *
 * In the fleet process (`netpresence up`) and each of its worker threads, it samples the thread's
 * event-loop utilisation every half second. The first time the thread goes quiet (under 15 %)
 * after at least LIVE_HEAP_BUSY busy samples (over 40 %; default 30, i.e. 15 s: more than a fleet's
 * setup, less than a burst's), it runs two full collections and writes
 * `<pid>.<threadId>.txt` to LIVE_HEAP_DIR: the V8 heap used before and after them, in MiB. With
 * LIVE_HEAP_SNAPSHOT=<threadId> that thread also writes a heap snapshot there. Use a low
 * LIVE_HEAP_BUSY (8) to measure a fleet right after its setup, before any binding.
 *
 * The collections and a snapshot stop the thread for a moment: figures of the run it measures are
 * not figures to record.
 */
'use strict';
const { writeFileSync, mkdirSync } = require('node:fs');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const v8 = require('node:v8');
const vm = require('node:vm');
const { isMainThread, threadId } = require('node:worker_threads');

const dir = process.env.LIVE_HEAP_DIR;
const isFleet = !isMainThread || process.argv.includes('up');

if (dir && isFleet) {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  const busyNeeded = Number(process.env.LIVE_HEAP_BUSY ?? 30);
  const mib = (bytes) => (bytes / 2 ** 20).toFixed(0);
  let last = performance.eventLoopUtilization();
  let busy = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const utilization = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (utilization > 0.4) busy++;
    if (busy < busyNeeded || utilization > 0.15) return;
    clearInterval(timer);
    const before = v8.getHeapStatistics().used_heap_size;
    gc();
    gc();
    const after = v8.getHeapStatistics().used_heap_size;
    mkdirSync(dir, { recursive: true });
    const name = `${process.pid}.${threadId}`;
    writeFileSync(
      join(dir, `${name}.txt`),
      `busy ${busy / 2} s; used ${mib(before)} MiB, live ${mib(after)} MiB\n`,
    );
    if (process.env.LIVE_HEAP_SNAPSHOT === String(threadId))
      v8.writeHeapSnapshot(join(dir, `${name}.heapsnapshot`));
  }, 500);
  timer.unref();
}
