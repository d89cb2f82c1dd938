/**
 * bench/cell: how fast the cell controllers bind NetworkInterfaceClaims on the embedded planes,
 * each claim costing an IPv6 address from the project's IPAM (an IPClaim through the allocation
 * hook at the Milo path) and an interface written in the cell.
 *
 * Builds fixture K in one process (test/support/cell-fixtures.ts: the embedded API server over
 * real HTTPS, project `project-alpha` with the IPAM hook and default IPAM set, cell `cell-a` with
 * namespace H, ServingLocation `us-central-1`, the IPv6 Subnet and the /48 and /64 ScopeRange
 * claims) and runs the cell process (identity, claim, interface and hold controllers, unelected).
 *
 * Two modes:
 *   absent  — N claims (`[IPv6]`, network `vpc`) are created C at a time while context C is
 *             absent, and each is first refused `NetworkNotAvailableInLocation`; then C lands.
 *             Measured: p50/p99 of the time from C's create returning to each claim's watch
 *             event carrying `Bound=True`, and claims bound per second (N / time to the last);
 *   present — C exists; N claims are created C at a time. Measured: p50/p99 of the time from a
 *             claim's create being sent to its `Bound=True` event, and claims bound per second
 *             (N / first create to last Bound).
 * Nothing is polled: one watch over the cell's claims records every `Bound=True`.
 *
 * Usage: npm run bench:cell -- [--claims N] [--concurrency C] [--timeout SECONDS] [--mode absent|present|both]
 */
import {
  C,
  conditionOf,
  contextSpec,
  createContext,
  startFixtureK,
  until,
  type CellScenario,
} from '../../test/support/cell-fixtures.ts';
import { parseFlags, percentile, within } from '../flags.ts';

interface Args {
  claims: number;
  concurrency: number;
  timeout: number;
  mode: string;
}

function parseArgs(argv: string[]): Args {
  return parseFlags<Args>(
    argv,
    { claims: 1000, concurrency: 16, timeout: 600, mode: 'both' },
    { mode: ['absent', 'present', 'both'] },
  );
}

const claimName = (i: number) => `bench-${i}-eth0`;

/** Records, per claim, when a watch event first carries the wanted condition. */
async function recordConditions(k: CellScenario, type: string, reason: string, total: number) {
  const at = new Map<string, number>();
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
  const { resourceVersion } = await k.claims.list({ namespace: k.H });
  const watch = await k.claims.watch(
    { namespace: k.H, resourceVersion },
    (event, claim) => {
      if (event !== 'ADDED' && event !== 'MODIFIED') return;
      const name = claim.metadata.name!;
      if (at.has(name) || conditionOf(claim, type)?.reason !== reason) return;
      at.set(name, performance.now());
      if (at.size === total) done();
    },
    (err) => {
      if (err) console.error(`claim watch ended: ${err.message}`);
    },
  );
  return { at, all, stop: () => watch.abort() };
}

async function createClaims(k: CellScenario, args: Args, sentAt?: Map<string, number>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: args.concurrency }, async () => {
      while (next < args.claims) {
        const name = claimName(next++);
        sentAt?.set(name, performance.now());
        await k.claims.create({ metadata: { name, namespace: k.H }, spec: { network: { name: 'vpc' } } });
      }
    }),
  );
  return performance.now() - started;
}

/** Why the claims not yet bound are waiting, counted by their Ready reason. */
async function unbound(k: CellScenario, bound: Map<string, number>): Promise<string> {
  const counts = new Map<string, number>();
  for (const claim of (await k.claims.list({ namespace: k.H })).items) {
    if (bound.has(claim.metadata.name!)) continue;
    const reason = conditionOf(claim, 'Ready')?.reason ?? 'none';
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts].map(([reason, n]) => `${n} ${reason}`).join(', ');
}

function report(
  mode: string,
  args: Args,
  latencies: number[],
  boundCount: number,
  spanMs: number,
  createMs: number,
) {
  latencies.sort((a, b) => a - b);
  console.log(
    `${mode}: ${boundCount}/${args.claims} claims bound (${args.concurrency} concurrent creates, sent in ` +
      `${(createMs / 1000).toFixed(1)} s)` +
      (latencies.length > 0
        ? `; p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms; ` +
          `${((boundCount * 1000) / spanMs).toFixed(1)} claims bound/s`
        : ''),
  );
}

async function runAbsent(args: Args): Promise<void> {
  const k = await startFixtureK({ context: false });
  try {
    const refused = await recordConditions(k, 'Ready', 'NetworkNotAvailableInLocation', args.claims);
    const createMs = await createClaims(k, args);
    await within(refused.all, args.timeout * 1000);
    refused.stop();
    console.log(
      `absent: ${refused.at.size}/${args.claims} claims refused NetworkNotAvailableInLocation before C lands`,
    );
    const bound = await recordConditions(k, 'Bound', 'Bound', args.claims);
    await createContext(k, C, contextSpec());
    const landed = performance.now();
    await within(bound.all, args.timeout * 1000);
    bound.stop();
    if (bound.at.size < args.claims) console.log(`absent: not bound: ${await unbound(k, bound.at)}`);
    const latencies = [...bound.at.values()].map((at) => at - landed);
    report(
      'absent (context landing → Bound)',
      args,
      latencies,
      bound.at.size,
      Math.max(...bound.at.values()) - landed,
      createMs,
    );
  } finally {
    await k.stop();
  }
}

async function runPresent(args: Args): Promise<void> {
  const k = await startFixtureK();
  try {
    await until(async () => (await k.contexts.get(C, k.H)) !== undefined, 10_000, 'C');
    const bound = await recordConditions(k, 'Bound', 'Bound', args.claims);
    const sentAt = new Map<string, number>();
    const started = performance.now();
    const createMs = await createClaims(k, args, sentAt);
    await within(bound.all, args.timeout * 1000);
    bound.stop();
    if (bound.at.size < args.claims) console.log(`present: not bound: ${await unbound(k, bound.at)}`);
    const latencies = [...bound.at].map(([name, at]) => at - sentAt.get(name)!);
    report(
      'present (create → Bound)',
      args,
      latencies,
      bound.at.size,
      Math.max(...bound.at.values()) - started,
      createMs,
    );
  } finally {
    await k.stop();
  }
}

const args = parseArgs(process.argv.slice(2));
if (args.mode !== 'present') await runAbsent(args);
if (args.mode !== 'absent') await runPresent(args);
