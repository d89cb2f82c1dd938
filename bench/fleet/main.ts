/**
 * bench/fleet: the whole chain on `netpresence up`, as a user runs it — how long P × L
 * NetworkBindings take to become Ready and their claims to be Bound on the cells, how many API
 * writes a binding costs across every plane, and how much memory the fleet needs.
 *
 * The fleet (a child process, `netpresence up --config <generated>`) has P projects
 * `bench-p<i>`, each with one IPv6 Network `net`; L Locations `loc-<l>` (city code and region
 * set, so each gets its ServingLocation and policy), each served by one cell `cell-loc-<l>`.
 * Once every project has its hub namespace and is bound to every location, the bench creates,
 * for every pair (project p, location l), NetworkBinding `b-<l>` in p's hub namespace and claim
 * `c-<p>` (network `net`, defaults) in that namespace on `cell-loc-<l>` — one claim per
 * (project, cell). Claims are created right after their binding, so most wait for the context
 * to arrive, as a workload scheduled with its network would.
 *
 * Measured:
 *   1. binding→Ready: from the create being sent to the hub watch event with `Ready=True`;
 *   2. claim→Bound: from the claim's create to the cell watch event with `Bound=True`;
 *   3. converge: from the first create to the last binding Ready and claim Bound;
 *   4. writes per binding: the advance of every plane's revision (a list's resourceVersion is
 *      its plane's revision) from before the first create until the planes are quiet, less the
 *      background of Lease renewals measured before the run, / P×L (the claims' writes
 *      included);
 *   5. peak RSS: the fleet process's VmHWM (/proc/<pid>/status), setup included;
 *   6. claim Bound→project copy: from the cell watch event with `Bound=True` to the first event of
 *      the interface's project copy `c-<p>.<cell>` (controllers.md §13) in the project plane
 *      (negative when the copy is there first: the copy follows the interface, not the claim);
 *   7. copy writes per claim: every watch event on hub NetworkInterfaces and on project-plane
 *      copies (each is one write) from before the first create until the planes are quiet, / P×L;
 *   8. counts (counts.ts), over the same span: reconciles and retries per controller, API writes
 *      per binding by plane, identity, resource, subresource and verb, and the fleet's CPU seconds;
 *   9. with `--allocations DIR`, over the same span: what each thread of the fleet allocated, by
 *      function (allocations.ts; the profiles stay in DIR). Sampling costs CPU: time such a run apart;
 *  10. machine speed, from the first create to convergence: a fixed decode-and-encode timed by
 *      this process's CPU twice a second (../machine-speed.ts), and the share of samples that met
 *      the VM's slow state — so runs on different hours can be read against each other.
 *
 * With `--warmup W`, the fleet has W more projects `warm-p<i>`, and the same burst runs on them
 * first (W × L bindings and claims) until every binding is Ready, every claim Bound and the planes
 * are quiet; only then is the measured burst sent. The first burst a fleet serves is the first
 * time most of its code runs hot, so V8 compiles it then, on the same two cores; the warmed run
 * measures the burst a fleet that has been serving meets. The cold run stays the default.
 *
 * Usage: npm run bench:fleet -- [--projects P] [--locations L] [--concurrency C] [--timeout S]
 *        [--warmup W] [--profile DIR] [--allocations DIR]
 *        npm run bench:fleet -- --sequential N [--timeout S] [--profile DIR] [--hops on]
 *        (one binding at a time on the default fleet: see sequential.ts)
 *        npm run bench:fleet -- --idle S [--projects P --locations L] [--timeout S]
 *        (what an idle fleet writes: see idle.ts)
 *        Each runs the compiled fleet, as installed; `--code sources` runs it through tsx as a
 *        checkout does (../code.ts).
 */
import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { COPY_SELECTOR } from '../../src/apis/networking/v1alpha/interface-copy.ts';
import type { KubeObject, WatchHandle } from '../../src/client/types.ts';
import { KINDS, startChildFleet, type ChildFleet } from '../../test/support/fleet.ts';
import { parseFlags, percentile, within } from '../flags.ts';
import { CODES, netpresenceEntry } from '../code.ts';
import { MachineSpeedSampler, machineSpeedLine } from '../machine-speed.ts';
import { allocationLines, samplerOptions, startSampling, stopSampling } from './allocations.ts';
import { countLines, loadAverageLine, metricsUrls, snapshot } from './counts.ts';
import { idle } from './idle.ts';
import { sequential } from './sequential.ts';

interface Args {
  projects: number;
  locations: number;
  concurrency: number;
  timeout: number;
  /** A directory for the fleet process's CPU profile (`--cpu-prof`); none when empty. */
  profile: string;
  /** A directory for the fleet's allocation profiles over the burst (allocations.ts); none when empty. */
  allocations: string;
  /** N rounds of one binding at a time on the default fleet instead of a burst; 0: the burst. */
  sequential: number;
  /** S seconds of an idle fleet's writes instead of a burst (see idle.ts); 0: the burst. */
  idle: number;
  /** `on`: with --sequential, the per-hop table (see hops.ts). */
  hops: string;
  /** `compiled` (dist/, as installed) or `sources` (through tsx, as a checkout runs): ../code.ts. */
  code: string;
  /** Projects of their own whose burst runs to convergence before the measured one; 0: none. */
  warmup: number;
}

function parseArgs(argv: string[]): Args {
  return parseFlags<Args>(
    argv,
    {
      projects: 100,
      locations: 10,
      concurrency: 16,
      timeout: 1800,
      profile: '',
      allocations: '',
      sequential: 0,
      idle: 0,
      hops: 'off',
      code: 'compiled',
      warmup: 0,
    },
    { hops: ['off', 'on'], code: CODES },
  );
}

const projectName = (p: number) => `bench-p${p}`;
const warmupName = (p: number) => `warm-p${p}`;
/** Every project of the fleet: the warm-up ones first. */
const allProjects = (args: Args) => [
  ...Array.from({ length: args.warmup }, (_, p) => warmupName(p)),
  ...Array.from({ length: args.projects }, (_, p) => projectName(p)),
];
const locationName = (l: number) => `loc-${l}`;
const cellName = (l: number) => `cell-loc-${l}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function fleetConfig(args: Args): string {
  return stringify({
    projects: allProjects(args).map((name) => ({ name, networks: [{ name: 'net', ipFamilies: ['IPv6'] }] })),
    locations: Array.from({ length: args.locations }, (_, l) => ({
      name: locationName(l),
      topology: { 'topology.datum.net/city-code': `C${l}`, 'topology.datum.net/region': `region-${l}` },
    })),
    cells: Array.from({ length: args.locations }, (_, l) => ({
      name: cellName(l),
      location: locationName(l),
    })),
  });
}

const conditionTrue = (object: KubeObject, type: string): boolean =>
  ((object.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some(
    (c) => c.type === type && c.status === 'True',
  );

async function retry<T>(what: string, fn: () => Promise<T>, timeoutMs = 600_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: ${(err as Error).message}`);
      await sleep(200);
    }
  }
}

/**
 * For every pair (project p, location l) of `namespaces` × the locations: NetworkBinding `b-<l>`
 * in p's hub namespace, then claim `c-<p>` in that namespace on `cell-loc-<l>`, `concurrency` at
 * a time, location by location; `sent` records when each create was sent, by watch key.
 */
async function createPairs(fleet: ChildFleet, args: Args, namespaces: string[], sent: Map<string, number>) {
  const hub = fleet.client('hub', KINDS.networkBindings);
  const pairs = namespaces.length * args.locations;
  let next = 0;
  await Promise.all(
    Array.from({ length: args.concurrency }, async () => {
      while (next < pairs) {
        const j = next++;
        const p = j % namespaces.length;
        const l = Math.floor(j / namespaces.length);
        const namespace = namespaces[p];
        sent.set(`hub/${namespace}/b-${l}`, performance.now());
        await hub.create({
          metadata: { name: `b-${l}`, namespace },
          spec: {
            network: { name: 'net' },
            location: { name: locationName(l) },
            consumer: { apiGroup: 'compute.datumapis.com', kind: 'WorkloadDeployment', name: `w-${l}` },
          },
        });
        sent.set(`${cellName(l)}/${namespace}/c-${p}`, performance.now());
        await fleet.client(cellName(l), KINDS.claims).create({
          metadata: { name: `c-${p}`, namespace },
          spec: { network: { name: 'net' } },
        });
      }
    }),
  );
}

/**
 * Watches the hub's bindings and every cell's claims, recording when each one in `namespaces` (the
 * burst's projects' hub namespaces) turns Ready or Bound; `converged` resolves once every pair's
 * binding and claim have. Objects of other projects (a warm-up burst's) are not counted.
 */
async function watchConvergence(fleet: ChildFleet, args: Args, namespaces: string[]) {
  const pairs = namespaces.length * args.locations;
  const inBurst = new Set(namespaces);
  const ready = new Map<string, number>();
  const bound = new Map<string, number>();
  let done: () => void = () => {};
  const converged = new Promise<void>((resolve) => (done = resolve));
  const check = () => {
    if (ready.size >= pairs && bound.size >= pairs) done();
  };
  const watches = [await recordTrue(fleet, 'hub', KINDS.networkBindings, 'Ready', inBurst, ready, check)];
  for (let l = 0; l < args.locations; l++)
    watches.push(await recordTrue(fleet, cellName(l), KINDS.claims, 'Bound', inBurst, bound, check));
  return { ready, bound, converged, watches };
}

/** The warm-up burst (`--warmup`) on the projects of `namespaces`: its seconds to convergence. */
async function warmUp(fleet: ChildFleet, args: Args, namespaces: string[]): Promise<number> {
  const pairs = namespaces.length * args.locations;
  const { ready, bound, converged, watches } = await watchConvergence(fleet, args, namespaces);
  const started = performance.now();
  try {
    await createPairs(fleet, args, namespaces, new Map());
    if (!(await within(converged, args.timeout * 1000)))
      throw new Error(`warm-up: ${ready.size}/${pairs} bindings Ready, ${bound.size}/${pairs} claims Bound`);
    return (performance.now() - started) / 1000;
  } finally {
    for (const watch of watches) watch.abort();
  }
}

function contexts(args: Args): string[] {
  return [
    'platform',
    'hub',
    ...allProjects(args).map((project) => `project-${project}`),
    ...Array.from({ length: args.locations }, (_, l) => cellName(l)),
  ];
}

/** The sum of every plane's revision, read as the resourceVersion of a one-item list. */
async function revisionSum(fleet: ChildFleet, args: Args): Promise<number> {
  let sum = 0;
  for (const context of contexts(args)) {
    const { resourceVersion } = await fleet.client(context, KINDS.namespaces).list({ limit: 1 });
    sum += Number(resourceVersion);
  }
  return sum;
}

/**
 * The fleet never falls silent: every leader renews its Lease every 2 s. The background rate is
 * measured before the run, and "quiet" means advancing no faster than it.
 */
async function backgroundRate(fleet: ChildFleet, args: Args, windowMs = 6000): Promise<number> {
  const start = await revisionSum(fleet, args);
  const at = performance.now();
  await sleep(windowMs);
  return ((await revisionSum(fleet, args)) - start) / (performance.now() - at);
}

/** Waits until the revisions advance no faster than `rate` (per ms) over `windowMs`. */
async function quietRevisions(fleet: ChildFleet, args: Args, rate: number, windowMs = 3000, maxMs = 300_000) {
  const deadline = performance.now() + maxMs;
  let last = await revisionSum(fleet, args);
  let at = performance.now();
  while (performance.now() < deadline) {
    await sleep(windowMs);
    const now = await revisionSum(fleet, args);
    const elapsed = performance.now() - at;
    if (now - last <= rate * elapsed * 1.5 + 1) return { sum: now, at: performance.now() };
    last = now;
    at = performance.now();
  }
  return { sum: last, at: performance.now() };
}

async function peakRssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kib / 1024;
}

/**
 * Watches `id` in `context` and records, per namespace/name, when `condition` first turns True on
 * an object in one of `namespaces`.
 */
async function recordTrue(
  fleet: ChildFleet,
  context: string,
  id: (typeof KINDS)[keyof typeof KINDS],
  condition: string,
  namespaces: ReadonlySet<string>,
  seen: Map<string, number>,
  onSeen: () => void,
) {
  const client = fleet.client(context, id);
  const { resourceVersion } = await client.list({ limit: 1 });
  return client.watch(
    { resourceVersion },
    (type, object) => {
      if (type !== 'ADDED' && type !== 'MODIFIED') return;
      if (!namespaces.has(object.metadata.namespace ?? '')) return;
      const key = `${context}/${object.metadata.namespace}/${object.metadata.name}`;
      if (seen.has(key) || !conditionTrue(object, condition)) return;
      seen.set(key, performance.now());
      onSeen();
    },
    (err) => {
      if (err) console.error(`${context} watch ended: ${err.message}`);
    },
  );
}

/**
 * Counts every write to interface copies (one watch event each) on the hub and in every project
 * plane, and records when each project copy is first seen, by the claim key it copies.
 */
async function watchCopies(
  fleet: ChildFleet,
  args: Args,
  hubNamespaces: string[],
  present: Map<string, number>,
): Promise<{ writes(): number; stop(): void; watchCount: number }> {
  let writes = 0;
  const handles: WatchHandle[] = [];
  const open = async (context: string, onEvent: (object: KubeObject) => void) => {
    const client = fleet.client(context, KINDS.interfaces);
    const { resourceVersion } = await client.list({ limit: 1, labelSelector: COPY_SELECTOR });
    handles.push(
      await client.watch(
        { resourceVersion, labelSelector: COPY_SELECTOR },
        (type, object) => {
          if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
          writes++;
          onEvent(object);
        },
        (err) => {
          if (err) console.error(`${context} copy watch ended: ${err.message}`);
        },
      ),
    );
  };
  await open('hub', () => {});
  for (let p = 0; p < args.projects; p++)
    await open(`project-${projectName(p)}`, (copy) => {
      const match = /^(c-\d+)\.(cell-loc-\d+)$/.exec(copy.metadata.name ?? '');
      if (!match) return;
      const key = `${match[2]}/${hubNamespaces[p]}/${match[1]}`;
      if (!present.has(key)) present.set(key, performance.now());
    });
  return {
    writes: () => writes,
    stop: () => handles.forEach((handle) => handle.abort()),
    watchCount: handles.length,
  };
}

async function main(args: Args): Promise<void> {
  const pairs = args.projects * args.locations;
  console.log(
    `fleet: ${args.projects} projects × ${args.locations} locations (one cell each) = ${pairs} bindings and ${pairs} claims` +
      (args.warmup > 0 ? `, after a warm-up burst on ${args.warmup} more projects` : ''),
  );
  // Built before the clock starts: the setup time and the load average are the fleet's alone.
  const entry = netpresenceEntry(args.code);
  console.log(loadAverageLine('start'));
  const sampler = args.allocations ? await samplerOptions(args.allocations) : undefined;
  const setupStarted = performance.now();
  const fleet = await startChildFleet({
    entry,
    config: fleetConfig(args),
    timeoutMs: 1_800_000,
    nodeArgs: [
      ...(args.profile ? ['--cpu-prof', '--cpu-prof-dir', args.profile] : []),
      ...(sampler?.nodeArgs ?? []),
    ],
    env: sampler?.env,
  });
  try {
    console.log(`setup: fleet ready in ${(fleet.startupMs / 1000).toFixed(1)} s`);
    const projects = allProjects(args);
    // Each project's hub namespace, the warm-up projects' first.
    const allNamespaces: string[] = new Array<string>(projects.length);
    let nextProject = 0;
    await Promise.all(
      Array.from({ length: args.concurrency }, async () => {
        while (nextProject < projects.length) {
          const p = nextProject++;
          const project = projects[p];
          const hubNamespace = await retry(`hub namespace of ${project}`, () => fleet.hubNamespace(project));
          allNamespaces[p] = hubNamespace;
          await retry(`${project} bound to every location`, async () => {
            const { items } = await fleet.client(`project-${project}`, KINDS.locationBindings).list();
            if (items.length < args.locations)
              throw new Error(`${items.length}/${args.locations} LocationBindings`);
          });
          await retry(`hub namespace ${hubNamespace} on every cell`, async () => {
            for (let l = 0; l < args.locations; l++)
              if (!(await fleet.client(cellName(l), KINDS.namespaces).get(hubNamespace)))
                throw new Error(`absent on ${cellName(l)}`);
          });
        }
      }),
    );
    const hubNamespaces = allNamespaces.slice(args.warmup);
    const rate = await backgroundRate(fleet, args);
    if (args.warmup > 0) {
      const warmupS = await warmUp(fleet, args, allNamespaces.slice(0, args.warmup));
      await quietRevisions(fleet, args, rate);
      console.log(
        `setup: warm-up burst of ${args.warmup * args.locations} bindings and claims converged in ${warmupS.toFixed(1)} s`,
      );
    }
    const urls = metricsUrls(fleet.stdout());
    const countsBefore = await snapshot(urls, fleet.child.pid!);
    if (sampler) startSampling(fleet.child);
    const before = { sum: await revisionSum(fleet, args), at: performance.now() };
    console.log(
      `setup: every project bound and its namespace on every cell after ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
    );

    const sent = new Map<string, number>();
    const copied = new Map<string, number>();
    const copies = await watchCopies(fleet, args, hubNamespaces, copied);
    const { ready, bound, converged, watches } = await watchConvergence(fleet, args, hubNamespaces);

    const machineSpeed = new MachineSpeedSampler();
    machineSpeed.start();
    const started = performance.now();
    // The bench's own CPU (its creates, and decoding its watches' events) shares the machine's
    // cores with the fleet: reported, so a run's figures can be read against it.
    const benchCpuAtStart = process.cpuUsage();
    await createPairs(fleet, args, hubNamespaces, sent);
    const created = performance.now();
    // A line a minute, so a long run shows how it advances.
    const progress = setInterval(() => {
      const elapsed = ((performance.now() - started) / 1000).toFixed(0);
      console.log(
        `run: ${elapsed} s: ${ready.size}/${pairs} bindings Ready, ${bound.size}/${pairs} claims Bound`,
      );
    }, 60_000);
    await within(converged, args.timeout * 1000);
    clearInterval(progress);
    const last = performance.now();
    const benchCpu = process.cpuUsage(benchCpuAtStart);
    const speed = machineSpeed.stop();
    for (const watch of watches) watch.abort();
    const after = await quietRevisions(fleet, args, rate);
    const countsAfter = await snapshot(urls, fleet.child.pid!);
    if (sampler) await stopSampling(fleet.child, args.allocations);
    copies.stop();
    const copyWrites = copies.writes();
    const writes = after.sum - before.sum - Math.round(rate * (after.at - before.at));
    const rss = await peakRssMiB(fleet.child.pid!);

    const latencies = (seen: Map<string, number>) =>
      [...seen].map(([key, at]) => at - sent.get(key)!).sort((a, b) => a - b);
    const report = (what: string, seen: Map<string, number>) => {
      const sorted = latencies(seen);
      return sorted.length === 0
        ? `${what}: none`
        : `${what} p50 ${(percentile(sorted, 50) / 1000).toFixed(1)} s, p99 ${(percentile(sorted, 99) / 1000).toFixed(1)} s`;
    };
    const boundToCopy = [...bound]
      .filter(([key]) => copied.has(key))
      .map(([key, at]) => copied.get(key)! - at)
      .sort((a, b) => a - b);
    const copyReport =
      boundToCopy.length === 0
        ? 'claim Bound→project copy: none'
        : `claim Bound→project copy p50 ${(percentile(boundToCopy, 50) / 1000).toFixed(1)} s, p99 ${(percentile(boundToCopy, 99) / 1000).toFixed(1)} s (${boundToCopy.length}/${pairs} copies)`;
    const convergeS = (Math.max(...ready.values(), ...bound.values()) - started) / 1000;
    console.log(
      `run: creates sent in ${((created - started) / 1000).toFixed(1)} s; ${ready.size}/${pairs} bindings Ready, ` +
        `${bound.size}/${pairs} claims Bound` +
        (ready.size < pairs || bound.size < pairs
          ? ` (timed out after ${((last - started) / 1000).toFixed(0)} s)`
          : ''),
    );
    console.log(
      `result: converged in ${convergeS.toFixed(1)} s; ${report('binding→Ready', ready)}; ${report('claim→Bound', bound)}; ` +
        `${(writes / pairs).toFixed(1)} API writes per binding (${writes}, Lease renewals excluded); peak RSS ${rss.toFixed(0)} MiB`,
    );
    console.log(
      `result: ${copyReport}; ${(copyWrites / pairs).toFixed(1)} copy writes per claim (${copyWrites}, hub and project copies)`,
    );
    console.log(
      `bench: this process's own CPU from the first create to convergence: ${((benchCpu.user + benchCpu.system) / 1e6).toFixed(1)} s (its creates and ${watches.length + copies.watchCount} watches, on the fleet's cores)`,
    );
    console.log(machineSpeedLine(speed));
    for (const line of countLines(countsBefore, countsAfter, pairs, fleet.child.pid!)) console.log(line);
    if (sampler) for (const line of await allocationLines(args.allocations, pairs)) console.log(line);
    console.log(loadAverageLine('end'));
  } finally {
    await fleet.dispose();
  }
}

const args = parseArgs(process.argv.slice(2));
if (args.sequential > 0)
  await sequential(args.sequential, Math.min(args.timeout, 120), args.profile, args.hops === 'on', args.code);
else if (args.idle > 0) {
  // The default fleet unless a size is given.
  const sized = process.argv.some((a) => a === '--projects' || a === '--locations');
  await idle(args.idle, sized ? fleetConfig(args) : undefined, Math.min(args.timeout, 300), args.code);
} else await main(args);
