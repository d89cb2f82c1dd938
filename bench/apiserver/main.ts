/**
 * bench/apiserver: how fast the embedded API server takes writes and delivers watch events.
 *
 * Starts `netpresence apiserver` as a child process (the server and the load do not share an
 * event loop), in memory and then with `--data-dir` (SQLite), and measures over HTTPS with
 * keep-alive:
 *   1. creates per second: N ConfigMaps created by C concurrent clients;
 *   2. watch delivery latency (in memory): W watchers on one namespace; M ConfigMaps created one
 *      at a time, each carrying its send time; p50/p99 of (arrival − send) over all W × M
 *      deliveries.
 *
 * Usage: npm run bench:apiserver -- [--creates N] [--concurrency C] [--watchers W] [--events M] [--profile DIR]
 *        [--code compiled|sources]
 *
 * Each phase also prints the CPU seconds the server and the bench client used (from /proc), so
 * that runs on a loaded machine compare by creates per server CPU-second.
 * `--profile DIR` runs the server with `--cpu-prof` and leaves its CPU profile in DIR. The server
 * runs the compiled code, as installed, unless `--code sources` (../code.ts).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, openWatch, startChildServer, type PlaneTarget } from '../../test/support/child-server.ts';
import { CODES, netpresenceEntry } from '../code.ts';
import { parseFlags, percentile } from '../flags.ts';

interface Args {
  creates: number;
  concurrency: number;
  watchers: number;
  events: number;
  profile: string;
  /** `compiled` (dist/, as installed) or `sources` (through tsx, as a checkout runs): ../code.ts. */
  code: string;
}

function parseArgs(argv: string[]): Args {
  return parseFlags<Args>(
    argv,
    { creates: 5000, concurrency: 16, watchers: 100, events: 200, profile: '', code: 'compiled' },
    { code: CODES },
  );
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of the server and of this (the client) process while `work` runs. */
async function withCpu<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; server: number; client: number }> {
  const server = cpuSeconds(pid);
  const client = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(client);
  return { result, server: cpuSeconds(pid) - server, client: (used.user + used.system) / 1e6 };
}

async function measureCreates(target: PlaneTarget, total: number, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const res = await call(target, 'POST', '/api/v1/namespaces/default/configmaps', {
          metadata: { name: `cm-${i}` },
          data: { index: String(i) },
        });
        if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.body}`);
      }
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

async function measureWatchLatency(target: PlaneTarget, watchers: number, events: number) {
  await call(target, 'POST', '/api/v1/namespaces', { metadata: { name: 'watched' } });
  const latencies: number[] = [];
  const streams = await Promise.all(
    Array.from({ length: watchers }, () =>
      openWatch(target, '/api/v1/namespaces/watched/configmaps?watch=true', (event) => {
        const sent = Number(event.object?.metadata?.annotations?.['bench/sent']);
        if (sent) latencies.push(performance.timeOrigin + performance.now() - sent);
      }),
    ),
  );
  for (let i = 0; i < events; i++) {
    const sent = performance.timeOrigin + performance.now();
    await call(target, 'POST', '/api/v1/namespaces/watched/configmaps', {
      metadata: { name: `w-${i}`, annotations: { 'bench/sent': String(sent) } },
    });
  }
  const deadline = Date.now() + 30_000;
  while (latencies.length < watchers * events && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  for (const stream of streams) stream.close();
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    delivered: latencies.length,
    expected: watchers * events,
  };
}

async function run(args: Args, entry: string, durable: boolean): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'netpresence-bench-'));
  const server = await startChildServer(
    ['--plane', 'bench', ...(durable ? ['--data-dir', join(dir, 'data')] : [])],
    join(dir, 'kubeconfig'),
    // A cold start (TypeScript through tsx) takes over 20 s on a loaded machine.
    120_000,
    args.profile ? ['--cpu-prof', '--cpu-prof-dir', args.profile] : [],
    entry,
  );
  const target = await server.target('bench');
  try {
    const pid = server.child.pid!;
    const creates = await withCpu(pid, () => measureCreates(target, args.creates, args.concurrency));
    console.log(
      `${durable ? 'durable (SQLite)' : 'in memory'}: ${args.creates} ConfigMap creates, ${args.concurrency} concurrent: ${creates.result.toFixed(0)} creates/s` +
        ` (server CPU ${creates.server.toFixed(2)} s: ${(args.creates / creates.server).toFixed(0)} creates per CPU-second; bench client CPU ${creates.client.toFixed(2)} s)`,
    );
    if (!durable) {
      const watch = await withCpu(pid, () => measureWatchLatency(target, args.watchers, args.events));
      console.log(
        `in memory: watch delivery, ${args.watchers} watchers × ${args.events} events (${watch.result.delivered}/${watch.result.expected} delivered): ` +
          `p50 ${watch.result.p50.toFixed(2)} ms, p99 ${watch.result.p99.toFixed(2)} ms` +
          ` (server CPU ${watch.server.toFixed(2)} s, bench client CPU ${watch.client.toFixed(2)} s)`,
      );
    }
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    target.agent.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

const args = parseArgs(process.argv.slice(2));
const entry = netpresenceEntry(args.code);
await run(args, entry, false);
await run(args, entry, true);
