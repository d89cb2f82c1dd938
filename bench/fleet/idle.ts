/**
 * bench/fleet --idle S: what an idle fleet writes. On a fleet where nothing changes, every plane's
 * revision should advance by Lease renewals only (leader election); any other write is a
 * controller rewriting what did not change (a resync that writes, a timestamp refreshed, a
 * backstop that writes).
 *
 * The fleet is the built-in default one (`netpresence up` with no config) holding, per family
 * (IPv6, IPv4), a Network, a NetworkBinding and a claim the bench creates first (so the
 * presence, propagation, cell and data-plane controllers have converged objects to keep, not
 * just an empty fleet); or P × L as in the burst, empty, when `--projects` or `--locations` is
 * given. It runs with per-controller user agents
 * (client/user-agent.ts), so each write names its controller. The bench waits until the fleet
 * has converged — no write but Lease renewals over a 10 s window, read from the server's
 * `netpresence_apiserver_writes_total` counter — then, over S seconds:
 *
 *   1. every plane's revision advance (a one-item list's resourceVersion), and the counted writes
 *      and Lease renewals on that plane (the difference is what the counter does not see: a
 *      plane's lifecycle writes);
 *   2. every write that is not a Lease renewal, by plane, identity [controller], resource,
 *      subresource and verb.
 *
 * Guarantees: the verdict line says `Lease renewals only` exactly when the counter names no other
 * write and the planes' revisions advanced no further than the Lease renewals counted around
 * the span (the counter is read on both sides of each revision read, so a renewal at the edge
 * is not taken for a stray write); a fleet that is never quiet within the timeout is measured
 * anyway and said so.
 */
import { parsePrometheusText } from '../../src/dashboard/prometheus-text.ts';
import { isForbidden } from '../../src/client/errors.ts';
import { USER_AGENT_ENV } from '../../src/client/user-agent.ts';
import type { KubeObject } from '../../src/client/types.ts';
import { KINDS, startChildFleet, type ChildFleet } from '../../test/support/fleet.ts';
import { netpresenceEntry } from '../code.ts';
import { delta, loadAverageLine, metricsUrls } from './counts.ts';

const WRITES = 'netpresence_apiserver_writes_total';
const PROJECT = 'demo';
const LOCATION = 'us-central-1';
const CELL = 'cell-us-central-1';
const FAMILIES = ['IPv6', 'IPv4'] as const;
const QUIET_WINDOW_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isLease = (key: string) => key.split('|')[2]?.endsWith('/leases') ?? false;

/** Each plane whose revision advanced, then how many did not (a fleet may have a thousand). */
function advanceList(advances: [string, number][]): string {
  const moved = advances.filter(([, n]) => n > 0).map(([plane, n]) => `${plane} ${n}`);
  const still = advances.length - moved.length;
  return [...moved, ...(still > 0 ? [`${still} ${still === 1 ? 'other' : 'others'} 0`] : [])].join(', ');
}

/** `plane|user [agent]|resource|subresource|verb` → count, over every /metrics URL. */
async function writes(urls: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const url of urls) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    for (const { name, labels, value } of parsePrometheusText(await response.text())) {
      if (name !== WRITES) continue;
      const plane = labels.plane === '' ? 'root' : labels.plane;
      const who = labels.user + (labels.user_agent ? ` [${labels.user_agent}]` : '');
      const key = [plane, who, labels.resource, labels.subresource, labels.verb].join('|');
      out.set(key, (out.get(key) ?? 0) + value);
    }
  }
  return out;
}

/** Every plane the fleet's kubeconfig names (one context per cluster that may list) → its revision. */
async function revisions(fleet: ChildFleet): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const { name, cluster } of fleet.kubeConfig('hub').getContexts()) {
    if (out.has(cluster)) continue;
    try {
      const { resourceVersion } = await fleet.client(name, KINDS.namespaces).list({ limit: 1 });
      out.set(cluster, Number(resourceVersion));
    } catch (err) {
      if (!isForbidden(err)) throw err;
    }
  }
  return out;
}

const conditionTrue = (object: KubeObject, type: string): boolean =>
  ((object.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some(
    (c) => c.type === type && c.status === 'True',
  );

const sum = (entries: [string, number][]) => entries.reduce((a, [, n]) => a + n, 0);

/**
 * Gives the default fleet something to keep: per family, Network `idle-<family>` in
 * `demo/default`, NetworkBinding `idle-<family>` for it at `us-central-1` on the hub, and claim
 * `idle-<family>` on `cell-us-central-1`. Returns a check that names what is Ready and Bound.
 */
async function populate(fleet: ChildFleet): Promise<() => Promise<string>> {
  const H = await fleet.hubNamespace(PROJECT);
  for (const started = Date.now(); !(await fleet.client(CELL, KINDS.namespaces).get(H));) {
    if (Date.now() - started > 120_000) throw new Error(`${H} never reached ${CELL}`);
    await sleep(100);
  }
  for (const family of FAMILIES) {
    const name = `idle-${family.toLowerCase()}`;
    await fleet.client(`project-${PROJECT}`, KINDS.networks).create({
      metadata: { name, namespace: 'default' },
      spec: { ipam: { mode: 'Auto' }, ipFamilies: [family] },
    });
    await fleet.client('hub', KINDS.networkBindings).create({
      metadata: { name, namespace: H },
      spec: {
        network: { name },
        location: { name: LOCATION },
        consumer: { apiGroup: 'compute.datumapis.com', kind: 'WorkloadDeployment', name },
      },
    });
    await fleet.client(CELL, KINDS.claims).create({
      metadata: { name, namespace: H },
      spec: { network: { name }, ipFamilies: [family] },
    });
  }
  console.log(`setup: ${FAMILIES.length} Networks, bindings and claims created (${FAMILIES.join(', ')})`);
  return async () => {
    const states: string[] = [];
    for (const family of FAMILIES) {
      const name = `idle-${family.toLowerCase()}`;
      const binding = await fleet.client('hub', KINDS.networkBindings).get(name, H);
      const claim = await fleet.client(CELL, KINDS.claims).get(name, H);
      states.push(
        `binding ${name} ${binding && conditionTrue(binding, 'Ready') ? 'Ready' : 'NOT Ready'}, ` +
          `claim ${name} ${claim && conditionTrue(claim, 'Bound') ? 'Bound' : 'NOT Bound'}`,
      );
    }
    return states.join('; ');
  };
}

export async function idle(
  seconds: number,
  config: string | undefined,
  timeoutS: number,
  code: string,
): Promise<void> {
  process.env[USER_AGENT_ENV] = '1';
  console.log(`idle: ${seconds} s on ${config === undefined ? 'the default fleet' : 'the configured fleet'}`);
  const fleet = await startChildFleet({ entry: netpresenceEntry(code), config, timeoutMs: 1_800_000 });
  try {
    console.log(`setup: fleet ready in ${(fleet.startupMs / 1000).toFixed(1)} s`);
    const urls = metricsUrls(fleet.stdout());
    if (urls.length === 0) throw new Error('the fleet printed no metrics: line');
    const made = config === undefined ? await populate(fleet) : undefined;
    const settleStarted = performance.now();
    let quiet = false;
    let last = await writes(urls);
    while (performance.now() - settleStarted < timeoutS * 1000) {
      await sleep(QUIET_WINDOW_MS);
      const now = await writes(urls);
      const moved = [...delta(now, last).keys()].filter((key) => !isLease(key));
      last = now;
      if (moved.length === 0) {
        quiet = true;
        break;
      }
    }
    const settleS = (performance.now() - settleStarted) / 1000;
    console.log(
      quiet
        ? `setup: quiet (Lease renewals only for ${QUIET_WINDOW_MS / 1000} s) ${settleS.toFixed(1)} s after ready`
        : `setup: never quiet within ${timeoutS} s; measuring anyway`,
    );
    console.log(loadAverageLine('start'));
    // Writes are read on both sides of each revision read: the revision advance lies between
    // the Lease renewals of the inner span and those of the outer one.
    const writesBefore = await writes(urls);
    const revisionsBefore = await revisions(fleet);
    const innerBefore = await writes(urls);
    await sleep(seconds * 1000);
    const innerAfter = await writes(urls);
    const revisionsAfter = await revisions(fleet);
    const written = delta(await writes(urls), writesBefore);
    const innerLeases = sum([...delta(innerAfter, innerBefore)].filter(([key]) => isLease(key)));

    let clean = true;
    console.log('result: plane | counted writes | of which Lease renewals (outer span)');
    const planes = [...new Set([...written.keys()].map((key) => key.split('|')[0]))].sort();
    for (const plane of planes) {
      const onPlane = [...written].filter(([key]) => key.split('|')[0] === plane);
      console.log(`result: ${plane} | ${sum(onPlane)} | ${sum(onPlane.filter(([key]) => isLease(key)))}`);
    }
    const advances = [...revisionsAfter].map(([cluster, after]): [string, number] => [
      cluster,
      after - (revisionsBefore.get(cluster) ?? after),
    ]);
    const leases = sum([...written].filter(([key]) => isLease(key)));
    if (sum(advances) > leases) clean = false;
    console.log(
      `result: revision advance over ${advances.length} planes ${sum(advances)} (${advanceList(advances)}); ` +
        `counted writes ${sum([...written])}; Lease renewals ${innerLeases}–${leases} (inner–outer span)`,
    );
    const others = [...written].filter(([key]) => !isLease(key)).sort((a, b) => b[1] - a[1]);
    if (others.length > 0) clean = false;
    console.log(
      `result: writes other than Lease renewals in ${seconds} s: ${others.length === 0 ? 'none' : ''}`,
    );
    for (const [key, n] of others) console.log(`result: ${key.split('|').join(' | ')} | ${n}`);
    if (made) console.log(`result: ${await made()}`);
    console.log(`result: ${clean ? 'Lease renewals only' : 'NOT Lease renewals only'}`);
    console.log(loadAverageLine('end'));
  } finally {
    await fleet.dispose();
  }
}
