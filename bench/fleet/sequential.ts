/**
 * bench/fleet --sequential N: the latency of one binding at a time on a quiet fleet — what a
 * user waits for when nothing else is happening.
 *
 * On the built-in default fleet (`netpresence up` with no config: project `demo`, locations
 * `us-central-1` and `eu-west-1`, cell `cell-us-central-1` serving the first), N rounds in a row,
 * each once per family (`[IPv6]`, then `[IPv4]`): a fresh Network `seq-<family>-<i>` in
 * `demo/default`, NetworkBinding `seq-<family>-<i>` for it at `us-central-1` on the hub, and —
 * once the binding is Ready and the context's copy is in the cell — claim `seq-<family>-<i>` on
 * `cell-us-central-1`. Each round waits for the last before it starts.
 *
 * Measured, per family, p50/p99 over the N rounds:
 *   1. binding→Ready: from the binding's create being sent to the hub watch event with
 *      `Ready=True`;
 *   2. binding→cell copy: from the same instant to the cell watch event that adds the
 *      NetworkContext `<network>-us-central-1` in the hub namespace;
 *   3. claim→Bound: from the claim's create to the cell watch event with `Bound=True`.
 *
 * Guarantees: a round that does not finish within the timeout ends the run with an error naming
 * the round and what it still waited for.
 */
import type { KubeObject } from '../../src/client/types.ts';
import { KINDS, startChildFleet, type ChildFleet } from '../../test/support/fleet.ts';
import { percentile, within } from '../flags.ts';
import { netpresenceEntry } from '../code.ts';
import { countLines, loadAverageLine, metricsUrls, snapshot } from './counts.ts';
import { HopRecorder } from './hops.ts';

const PROJECT = 'demo';
const LOCATION = 'us-central-1';
const CELL = 'cell-us-central-1';
const FAMILIES = ['IPv6', 'IPv4'] as const;
type Family = (typeof FAMILIES)[number];

const conditionTrue = (object: KubeObject, type: string): boolean =>
  ((object.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some(
    (c) => c.type === type && c.status === 'True',
  );

/** A map from name to the first instant `matches` held for an event on it, with waiters. */
class FirstSeen {
  private readonly at = new Map<string, number>();
  private readonly waiters = new Map<string, () => void>();

  see(name: string): void {
    if (this.at.has(name)) return;
    this.at.set(name, performance.now());
    this.waiters.get(name)?.();
    this.waiters.delete(name);
  }

  /** When `name` was first seen; waits for it. */
  when(name: string): Promise<number> {
    const at = this.at.get(name);
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve) => this.waiters.set(name, () => resolve(this.at.get(name)!)));
  }
}

async function watchFirst(
  fleet: ChildFleet,
  context: string,
  id: (typeof KINDS)[keyof typeof KINDS],
  namespace: string,
  matches: (type: string, object: KubeObject) => boolean,
  seen: FirstSeen,
) {
  const client = fleet.client(context, id);
  const { resourceVersion } = await client.list({ namespace, limit: 1 });
  return client.watch(
    { namespace, resourceVersion },
    (type, object) => {
      if (type !== 'ERROR' && matches(type, object)) seen.see(object.metadata.name!);
    },
    (err) => {
      if (err) console.error(`${context} watch ended: ${err.message}`);
    },
  );
}

async function waitFor<T>(what: string, done: Promise<T>, timeoutMs: number): Promise<T> {
  let value: T | undefined;
  const finished = await within(
    done.then((v) => (value = v)),
    timeoutMs,
  );
  if (!finished) throw new Error(`${what}: not within ${timeoutMs} ms`);
  return value!;
}

const ms = (sorted: number[], p: number) => `${percentile(sorted, p).toFixed(0)} ms`;

/**
 * p50, p99 and max over every round, then the first round apart and the p99 of the others: the
 * first binding and claim of a fresh fleet also wait for code the fleet had not yet run (a
 * round-trip chain's first pass compiles it), and with 40 rounds one such round is the p99.
 */
function summary(what: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return `${what}: none`;
  const all = `${what} p50 ${ms(sorted, 50)}, p99 ${ms(sorted, 99)}, max ${sorted.at(-1)!.toFixed(0)} ms`;
  if (samples.length < 2) return all;
  const later = samples.slice(1).sort((a, b) => a - b);
  return `${all} (first round ${samples[0].toFixed(0)} ms, the others' p99 ${ms(later, 99)})`;
}

export async function sequential(
  rounds: number,
  timeoutS: number,
  profile: string,
  hops: boolean,
  code: string,
): Promise<void> {
  console.log(`sequential: ${rounds} rounds × ${FAMILIES.join(', ')} on the default fleet`);
  const fleet = await startChildFleet({
    entry: netpresenceEntry(code),
    timeoutMs: 300_000,
    nodeArgs: profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : [],
  });
  try {
    console.log(`setup: fleet ready in ${(fleet.startupMs / 1000).toFixed(1)} s`);
    const H = await fleet.hubNamespace(PROJECT);
    for (const started = Date.now(); !(await fleet.client(CELL, KINDS.namespaces).get(H));) {
      if (Date.now() - started > timeoutS * 1000) throw new Error(`${H} never reached ${CELL}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const ready = new FirstSeen();
    const copied = new FirstSeen();
    const bound = new FirstSeen();
    const watches = [
      await watchFirst(
        fleet,
        'hub',
        KINDS.networkBindings,
        H,
        (t, o) => t !== 'DELETED' && conditionTrue(o, 'Ready'),
        ready,
      ),
      await watchFirst(fleet, CELL, KINDS.networkContexts, H, (t) => t === 'ADDED', copied),
      await watchFirst(
        fleet,
        CELL,
        KINDS.claims,
        H,
        (t, o) => t !== 'DELETED' && conditionTrue(o, 'Bound'),
        bound,
      ),
    ];
    const recorder = hops ? new HopRecorder() : undefined;
    await recorder?.start(
      Object.fromEntries(['hub', `project-${PROJECT}`, CELL].map((c) => [c, fleet.kubeConfig(c)])),
    );
    const networks = fleet.client(`project-${PROJECT}`, KINDS.networks);
    const bindings = fleet.client('hub', KINDS.networkBindings);
    const claims = fleet.client(CELL, KINDS.claims);
    const samples = new Map<Family, { ready: number[]; copy: number[]; bound: number[] }>(
      FAMILIES.map((f) => [f, { ready: [], copy: [], bound: [] }]),
    );
    const timeoutMs = timeoutS * 1000;
    const urls = metricsUrls(fleet.stdout());
    const pid = fleet.child.pid!;
    console.log(loadAverageLine('start'));
    const before = await snapshot(urls, pid);
    const runStarted = performance.now();
    for (let i = 0; i < rounds; i++) {
      for (const family of FAMILIES) {
        const name = `seq-${family.toLowerCase()}-${i}`;
        const networkSent = performance.now();
        await networks.create({
          metadata: { name, namespace: 'default' },
          spec: { ipam: { mode: 'Auto' }, ipFamilies: [family] },
        });
        const sent = performance.now();
        await bindings.create({
          metadata: { name, namespace: H },
          spec: {
            network: { name },
            location: { name: LOCATION },
            consumer: { apiGroup: 'compute.datumapis.com', kind: 'WorkloadDeployment', name },
          },
        });
        const s = samples.get(family)!;
        s.ready.push((await waitFor(`binding ${name} Ready`, ready.when(name), timeoutMs)) - sent);
        const context = `${name}-${LOCATION}`;
        s.copy.push((await waitFor(`context ${context} on ${CELL}`, copied.when(context), timeoutMs)) - sent);
        const claimSent = performance.now();
        await claims.create({
          metadata: { name, namespace: H },
          spec: { network: { name }, ipFamilies: [family] },
        });
        const boundAt = await waitFor(`claim ${name} Bound`, bound.when(name), timeoutMs);
        s.bound.push(boundAt - claimSent);
        recorder?.round(
          name,
          [
            ['network', networkSent],
            ['binding', sent],
            ['claim', claimSent],
          ],
          boundAt,
        );
      }
      if ((i + 1) % 10 === 0) console.log(`run: ${i + 1}/${rounds} rounds`);
    }
    const runSeconds = (performance.now() - runStarted) / 1000;
    const after = await snapshot(urls, pid);
    console.log(loadAverageLine('end'));
    for (const watch of watches) watch.abort();
    recorder?.stop();
    // Retries are waits on a backoff timer; CPU per round against the round's wall time tells a
    // chain that waits from one that computes.
    for (const line of countLines(before, after, rounds * FAMILIES.length, pid)) console.log(line);
    console.log(
      `counts: ${runSeconds.toFixed(1)} s of rounds, fleet CPU ${(((after.cpuSeconds - before.cpuSeconds) / runSeconds) * 100).toFixed(0)} % of one core`,
    );
    for (const family of FAMILIES) {
      const s = samples.get(family)!;
      console.log(
        `result ${family}: ${summary('binding→Ready', s.ready)}; ${summary('binding→cell copy', s.copy)}; ` +
          `${summary('claim→Bound', s.bound)}`,
      );
      if (recorder) {
        console.log(
          `hops ${family}: offset from anchor p50 / p99, gap from the event before p50 / p99, rounds`,
        );
        for (const line of recorder.report(`seq-${family.toLowerCase()}-`)) console.log(line);
      }
    }
  } finally {
    await fleet.dispose();
  }
}
