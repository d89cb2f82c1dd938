/**
 * bench/fleet's counts: per controller, the reconciles (`controller_runtime_reconcile_total`, by
 * result) and retries (`workqueue_retries_total`) the run cost, which load does not change, and the
 * mean queue wait (`workqueue_queue_duration_seconds`) and reconcile time (awaits included), which
 * it does; the API writes (`netpresence_apiserver_writes_total`, only writes that advanced a
 * revision) by plane kind, identity, resource, subresource and verb — and by controller when the
 * fleet runs with NETPRESENCE_USER_AGENT_PER_CONTROLLER=1 (client/user-agent.ts; it costs CPU, so
 * time that run apart) — the requests the server answered by verb and the fleet's clients sent by
 * method, with their mean times (`apiserver_request_duration_seconds`,
 * `rest_client_request_duration_seconds`), and the fleet process's CPU time, from /proc, in all
 * and by thread (the main thread serves the API; controller workers are threads of the same
 * process).
 *
 * Guarantees: every figure is a difference between two snapshots (before the first create, after
 * the planes are quiet), so the fleet's setup is left out; controllers that run in several
 * processes under one name (one per cell) are summed; every /metrics URL the fleet printed on its
 * `metrics: ` line is read, and a URL that does not answer fails the snapshot.
 */
import { readdir, readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { parsePrometheusText, type Sample } from '../../src/dashboard/prometheus-text.ts';
import { METRICS_LINE_PREFIX } from '../../src/cli/up.ts';
import { PROJECT_PLANES } from '../../src/apiserver/write-counter.ts';

const RECONCILES = 'controller_runtime_reconcile_total';
const RETRIES = 'workqueue_retries_total';
const WRITES = 'netpresence_apiserver_writes_total';
const QUEUE_WAIT = 'workqueue_queue_duration_seconds_sum';
const RECONCILE_TIME = 'controller_runtime_reconcile_time_seconds_sum';
const SERVER_TIME = 'apiserver_request_duration_seconds';
const CLIENT_TIME = 'rest_client_request_duration_seconds';

export interface Snapshot {
  /** `controller|result` → count. */
  reconciles: Map<string, number>;
  /** queue name (the controller's) → count. */
  retries: Map<string, number>;
  /** queue name → seconds its keys waited in the queue before a worker took them, summed. */
  queueWait: Map<string, number>;
  /** controller → seconds its reconciles ran (awaits included), summed. */
  reconcileTime: Map<string, number>;
  /** `planeKind|user [agent]|resource|subresource|verb` → count. */
  writes: Map<string, number>;
  /**
   * `server|<verb>|count` and `server|<verb>|seconds`: requests the API server answered and the
   * seconds it took, summed (watches not counted); `client|<method>|…` the same as the fleet's
   * clients saw them, to their response's headers.
   */
  requests: Map<string, number>;
  /** The fleet process's user + system CPU seconds. */
  cpuSeconds: number;
  /** The same by thread id (the main thread's id is the process's). */
  threadCpuSeconds: Map<number, number>;
}

/** The `/metrics` URLs on the fleet's `metrics: ` ready line. */
export function metricsUrls(stdout: string): string[] {
  const line = stdout.split('\n').find((l) => l.startsWith(METRICS_LINE_PREFIX));
  return line ? line.slice(METRICS_LINE_PREFIX.length).split(' ').filter(Boolean) : [];
}

/** platform, hub, project (every project plane: the counter labels them all `project`) or cell. */
export function planeKind(plane: string): string {
  if (plane === '' || plane === 'root') return 'platform';
  if (plane === PROJECT_PLANES) return 'project';
  if (plane === 'hub') return 'hub';
  return 'cell';
}

/** A cell's identity names its cell; the table names the role. */
function userRole(user: string): string {
  return user.replace(/cell-loc-\d+/g, 'cell-<l>');
}

function add(map: Map<string, number>, key: string, value: number) {
  map.set(key, (map.get(key) ?? 0) + value);
}

async function cpuSeconds(pid: number, task = ''): Promise<number> {
  const stat = await readFile(`/proc/${pid}${task}/stat`, 'utf8');
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function threadCpuSeconds(pid: number): Promise<Map<number, number>> {
  const threads = new Map<number, number>();
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    // A thread may end between the listing and the read.
    const seconds = await cpuSeconds(pid, `/task/${tid}`).catch(() => undefined);
    if (seconds !== undefined) threads.set(Number(tid), seconds);
  }
  return threads;
}

export async function snapshot(urls: string[], pid: number): Promise<Snapshot> {
  const samples: Sample[] = [];
  for (const url of urls) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    // Not `push(...all)`: at 3,000 projects a scrape holds more samples than a call takes arguments.
    for (const sample of parsePrometheusText(await response.text())) samples.push(sample);
  }
  const result: Snapshot = {
    reconciles: new Map(),
    retries: new Map(),
    queueWait: new Map(),
    reconcileTime: new Map(),
    writes: new Map(),
    requests: new Map(),
    cpuSeconds: await cpuSeconds(pid),
    threadCpuSeconds: await threadCpuSeconds(pid),
  };
  for (const { name, labels, value } of samples) {
    if (name === RECONCILES) add(result.reconciles, `${labels.controller}|${labels.result}`, value);
    else if (name === RETRIES) add(result.retries, labels.name, value);
    else if (name === QUEUE_WAIT) add(result.queueWait, labels.name, value);
    else if (name === RECONCILE_TIME) add(result.reconcileTime, labels.controller, value);
    else if (name === `${SERVER_TIME}_count`) add(result.requests, `server|${labels.verb}|count`, value);
    else if (name === `${SERVER_TIME}_sum`) add(result.requests, `server|${labels.verb}|seconds`, value);
    else if (name === `${CLIENT_TIME}_count`) add(result.requests, `client|${labels.verb}|count`, value);
    else if (name === `${CLIENT_TIME}_sum`) add(result.requests, `client|${labels.verb}|seconds`, value);
    else if (name === WRITES)
      add(
        result.writes,
        [
          planeKind(labels.plane),
          userRole(labels.user) + (labels.user_agent ? ` ${labels.user_agent}` : ''),
          labels.resource,
          labels.subresource,
          labels.verb,
        ].join('|'),
        value,
      );
  }
  return result;
}

/** What each key gained from `before` to `after`; keys that did not move are left out. */
export function delta(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, value] of after) {
    const d = value - (before.get(key) ?? 0);
    if (d !== 0) out.set(key, d);
  }
  return out;
}

/** `seconds` over `n` as milliseconds; `-` when there was none. */
const meanMs = (seconds: number, n: number) => (n ? `${((seconds / n) * 1000).toFixed(1)} ms` : '-');

/**
 * The threads that used over a second, busiest first, the main thread (id `pid`) named; then the
 * others together — V8's helpers (TurboFan's concurrent compiles, concurrent marking, parallel
 * scavenges: 3 s of a 1,000-binding burst's 15, bench/README.md) and libuv's pool.
 */
function threadLine(before: Snapshot, after: Snapshot, pid: number): string {
  const used = [...after.threadCpuSeconds]
    .map(([tid, seconds]) => [tid, seconds - (before.threadCpuSeconds.get(tid) ?? 0)] as const)
    .sort((a, b) => b[1] - a[1]);
  const named = used.filter(([, seconds]) => seconds >= 1);
  const rest = used.filter(([, seconds]) => seconds < 1);
  const restSeconds = rest.reduce((sum, [, seconds]) => sum + seconds, 0);
  return [
    ...named.map(([tid, seconds]) => `${tid === pid ? 'main ' : ''}${seconds.toFixed(1)} s`),
    `${rest.length} other threads ${restSeconds.toFixed(1)} s`,
  ].join(', ');
}

/**
 * Per verb, the requests the server answered and their mean time there, beside the requests the
 * fleet's clients sent by method and their mean time to an answer: where the two means part, the
 * difference is spent between the threads (queued behind the other's work, or in the transport).
 */
function requestLines(before: Snapshot, after: Snapshot): string[] {
  const requests = delta(after.requests, before.requests);
  const mean = (side: string, verb: string) => {
    const n = requests.get(`${side}|${verb}|count`) ?? 0;
    return n ? `${n} in ${meanMs(requests.get(`${side}|${verb}|seconds`) ?? 0, n)}` : '-';
  };
  const verbs = (side: string) =>
    [...requests.keys()]
      .filter((key) => key.startsWith(`${side}|`) && key.endsWith('|count'))
      .map((key) => key.split('|')[1])
      .sort((a, b) => (requests.get(`${side}|${b}|count`) ?? 0) - (requests.get(`${side}|${a}|count`) ?? 0));
  return [
    'counts: requests | at the server by verb: count in mean time | at the fleet clients by method: count in mean time',
    `counts: server | ${verbs('server')
      .map((verb) => `${verb} ${mean('server', verb)}`)
      .join(', ')}`,
    `counts: clients | ${verbs('client')
      .map((verb) => `${verb} ${mean('client', verb)}`)
      .join(', ')}`,
  ];
}

/** The lines bench/fleet prints: reconciles and retries per controller, requests, writes per binding. */
export function countLines(before: Snapshot, after: Snapshot, pairs: number, pid: number): string[] {
  const lines: string[] = [];
  const reconciles = delta(after.reconciles, before.reconciles);
  const retries = delta(after.retries, before.retries);
  const controllers = new Map<string, Map<string, number>>();
  for (const [key, value] of reconciles) {
    const [controller, resultName] = key.split('|');
    if (!controllers.has(controller)) controllers.set(controller, new Map());
    controllers.get(controller)!.set(resultName, value);
  }
  for (const name of retries.keys()) if (!controllers.has(name)) controllers.set(name, new Map());
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const queueWait = delta(after.queueWait, before.queueWait);
  const reconcileTime = delta(after.reconcileTime, before.reconcileTime);
  const mean = (seconds: Map<string, number>, controller: string, n: number) =>
    meanMs(seconds.get(controller) ?? 0, n);
  lines.push(
    'counts: controller | reconciles (by result) | retries | mean queue wait | mean reconcile (awaits included)',
  );
  for (const [controller, results] of [...controllers].sort((a, b) => total(b[1]) - total(a[1]))) {
    const byResult = [...results]
      .sort((a, b) => b[1] - a[1])
      .map(([r, n]) => `${r} ${n}`)
      .join(', ');
    const n = total(results);
    lines.push(
      `counts: ${controller} | ${n} (${byResult}) | ${retries.get(controller) ?? 0} | ${mean(queueWait, controller, n)} | ${mean(reconcileTime, controller, n)}`,
    );
  }
  lines.push(...requestLines(before, after));
  const all = delta(after.writes, before.writes);
  // Lease renewals are the background the revision figure leaves out too.
  const leases = [...all].filter(([key]) => key.includes('/leases|'));
  const writes = new Map([...all].filter(([key]) => !key.includes('/leases|')));
  const allWrites = total(writes);
  lines.push(
    `counts: writes per binding by plane | identity [controller] | resource | subresource | verb: ${(allWrites / pairs).toFixed(2)} (${allWrites} writes)`,
  );
  for (const [key, value] of [...writes].sort((a, b) => b[1] - a[1]))
    lines.push(`counts: ${key.split('|').join(' | ')} | ${(value / pairs).toFixed(2)} (${value})`);
  lines.push(`counts: Lease renewals (not counted above): ${leases.reduce((a, [, n]) => a + n, 0)}`);
  const byPlane = new Map<string, number>();
  for (const [key, value] of writes) add(byPlane, key.split('|')[0], value);
  lines.push(
    `counts: writes per binding per plane: ${[...byPlane].map(([p, n]) => `${p} ${(n / pairs).toFixed(2)}`).join(', ')}`,
  );
  lines.push(
    `counts: fleet CPU ${(after.cpuSeconds - before.cpuSeconds).toFixed(1)} s (user + system, first create → quiet); by thread: ${threadLine(before, after, pid)}`,
  );
  return lines;
}

/** `load average at the <when>: 1-min 5-min 15-min`, as every bench/fleet mode prints it. */
export function loadAverageLine(when: 'start' | 'end'): string {
  return `load average at the ${when}: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}
