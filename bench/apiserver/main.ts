/**
 * bench/apiserver: how fast the embedded API server takes writes and delivers watch events.
 *
 * Starts `netpresence apiserver` as a child process (so the server and the load do not share an
 * event loop), then measures over HTTPS with keep-alive:
 *   1. creates per second: N ConfigMaps created by C concurrent clients;
 *   2. watch delivery latency: W watchers on one namespace; M ConfigMaps created one at a time,
 *      each carrying its send time; p50/p99 of (arrival − send) over all W × M deliveries.
 *
 * Usage: npm run bench:apiserver -- [--creates N] [--concurrency C] [--watchers W] [--events M] [--data-dir DIR]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

interface Args {
  creates: number;
  concurrency: number;
  watchers: number;
  events: number;
  dataDir?: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { creates: 5000, concurrency: 16, watchers: 100, events: 200 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--creates') args.creates = Number(value);
    else if (flag === '--concurrency') args.concurrency = Number(value);
    else if (flag === '--watchers') args.watchers = Number(value);
    else if (flag === '--events') args.events = Number(value);
    else if (flag === '--data-dir') args.dataDir = value;
    else throw new Error(`unknown flag ${flag}`);
  }
  return args;
}

interface Target {
  base: string;
  token: string;
  ca: string;
  agent: Agent;
}

function call(
  target: Target,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${target.base}${path}`,
      {
        method,
        agent: target.agent,
        ca: target.ca,
        headers: {
          Authorization: `Bearer ${target.token}`,
          'Content-Type': 'application/json',
          ...(payload ? { 'Content-Length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function startServer(dir: string, dataDir?: string) {
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(
    process.execPath,
    [
      'bin/netpresence.js',
      'apiserver',
      '--listen',
      '127.0.0.1:0',
      '--plane',
      'bench',
      '--kubeconfig',
      kubeconfig,
      ...(dataDir ? ['--data-dir', dataDir] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('listening')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`apiserver exited with ${code}`)));
  });
  const config = parseYaml(await readFile(kubeconfig, 'utf8'));
  const context = config.contexts.find((c: any) => c.name === 'bench').context;
  const cluster = config.clusters.find((c: any) => c.name === context.cluster).cluster;
  const user = config.users.find((u: any) => u.name === context.user).user;
  const target: Target = {
    base: cluster.server,
    token: user.token,
    ca: Buffer.from(cluster['certificate-authority-data'], 'base64').toString(),
    agent: new Agent({ keepAlive: true, maxSockets: 64 }),
  };
  return { child, target };
}

async function measureCreates(target: Target, total: number, concurrency: number): Promise<number> {
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

async function measureWatchLatency(target: Target, watchers: number, events: number) {
  await call(target, 'POST', '/api/v1/namespaces', { metadata: { name: 'watched' } });
  const latencies: number[] = [];
  let delivered = 0;
  const streams = await Promise.all(
    Array.from(
      { length: watchers },
      () =>
        new Promise<import('node:http').ClientRequest>((resolve, reject) => {
          const req = request(
            `${target.base}/api/v1/namespaces/watched/configmaps?watch=true`,
            { ca: target.ca, headers: { Authorization: `Bearer ${target.token}` } },
            (res) => {
              let buffer = '';
              res.on('data', (chunk: Buffer) => {
                const now = performance.timeOrigin + performance.now();
                buffer += chunk.toString();
                let newline;
                while ((newline = buffer.indexOf('\n')) >= 0) {
                  const line = buffer.slice(0, newline);
                  buffer = buffer.slice(newline + 1);
                  const event = JSON.parse(line);
                  const sent = Number(event.object?.metadata?.annotations?.['bench/sent']);
                  if (sent) {
                    latencies.push(now - sent);
                    delivered++;
                  }
                }
              });
              resolve(req);
            },
          );
          req.on('error', reject);
          req.end();
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
  while (delivered < watchers * events && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const stream of streams) stream.destroy();
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    delivered,
    expected: watchers * events,
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const dir = await mkdtemp(join(tmpdir(), 'netpresence-bench-'));
  const { child, target } = await startServer(dir, args.dataDir);
  try {
    const rate = await measureCreates(target, args.creates, args.concurrency);
    const watch = await measureWatchLatency(target, args.watchers, args.events);
    console.log(`storage: ${args.dataDir ? `durable (${args.dataDir})` : 'in memory'}`);
    console.log(
      `creates: ${args.creates} ConfigMaps, ${args.concurrency} concurrent: ${rate.toFixed(0)} creates/s`,
    );
    console.log(
      `watch: ${args.watchers} watchers × ${args.events} events, delivered ${watch.delivered}/${watch.expected}: ` +
        `p50 ${watch.p50.toFixed(2)} ms, p99 ${watch.p99.toFixed(2)} ms`,
    );
  } finally {
    child.kill('SIGTERM');
    target.agent.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
