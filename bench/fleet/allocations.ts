/**
 * bench/fleet --allocations DIR: what each of the fleet's threads allocated over a burst — in all,
 * per binding, and by the functions that allocated most — from the profiles allocation-sampler.ts
 * writes inside the fleet process.
 *
 * Allocation is what a thread's young-generation collections and V8's helper threads pay for, and
 * unlike time it hardly moves with the machine's load: two runs of one tree agree to a few percent,
 * so a change's saving shows without alternating runs.
 *
 * Guarantees: `start()` and `stop()` bracket the span sampled (the fleet is signalled and `stop`
 * waits until every thread's profile is written); `report` reads only what the sampler wrote.
 * The profiles stay in DIR for DevTools (Memory → Load profile) or a closer look.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { ALLOCATIONS_DIR_VARIABLE } from './allocation-sampler.ts';

/**
 * The node options and environment a fleet process needs for `allocations` to sample it: a preload
 * that, on the main thread only, registers tsx's loader and imports the sampler. Worker threads
 * inherit node's options, so the preload runs in them too, and there does nothing.
 */
export async function samplerOptions(
  dir: string,
): Promise<{ nodeArgs: string[]; env: Record<string, string> }> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const sampler = new URL('./allocation-sampler.ts', import.meta.url).href;
  const preload = [
    `import { isMainThread } from 'node:worker_threads';`,
    `if (isMainThread) {`,
    `  const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))});`,
    `  register();`,
    `  await import(${JSON.stringify(sampler)});`,
    `}`,
  ].join('\n');
  return {
    nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(preload)}`],
    env: { [ALLOCATIONS_DIR_VARIABLE]: resolve(dir) },
  };
}

/** Starts sampling in the fleet process `child` (preloaded with samplerOptions). */
export function startSampling(child: ChildProcess): void {
  child.kill('SIGUSR2');
}

/** Stops sampling and waits, at most `timeoutMs`, until every thread's profile is written. */
export async function stopSampling(child: ChildProcess, dir: string, timeoutMs = 120_000): Promise<void> {
  child.kill('SIGUSR2');
  const deadline = Date.now() + timeoutMs;
  while (!(await readdir(dir)).includes('done')) {
    if (Date.now() > deadline)
      throw new Error(`allocation profiles not written to ${dir} in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children?: ProfileNode[];
}

/**
 * Bytes allocated by each function (name, file and line), from a sampling heap profile's tree. A
 * built-in (`Object.entries`, `Map`: no file) is named with the function that called it, which is
 * what a change would touch.
 */
export function bytesByFunction(head: ProfileNode): Map<string, number> {
  const bytes = new Map<string, number>();
  const stack: [ProfileNode, string][] = [[head, '']];
  while (stack.length > 0) {
    const [node, caller] = stack.pop()!;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    const key = url
      ? `${name} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`
      : caller
        ? `${name} in ${caller}`
        : name;
    if (node.selfSize > 0) bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    for (const child of node.children ?? []) stack.push([child, url ? key : caller]);
  }
  return bytes;
}

const MIB = 1024 * 1024;

/** Lines for the bench's output: per thread, the MiB allocated, KiB per binding, and the top `top` functions. */
export async function allocationLines(dir: string, pairs: number, top = 12): Promise<string[]> {
  const lines: string[] = [];
  const files = (await readdir(dir)).filter((f) => f.endsWith('.heapprofile')).sort();
  for (const file of files) {
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as { head: ProfileNode };
    const bytes = bytesByFunction(profile.head);
    const total = [...bytes.values()].reduce((a, b) => a + b, 0);
    const thread = file.replace(/\.heapprofile$/, '');
    lines.push(
      `allocations: ${thread}: ${(total / MIB).toFixed(0)} MiB, ${(total / pairs / 1024).toFixed(1)} KiB per binding; by function:`,
    );
    for (const [key, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, top))
      lines.push(`allocations: ${thread}:   ${(size / MIB).toFixed(1).padStart(7)} MiB  ${key}`);
  }
  return lines;
}
