/**
 * bench/dashboard: the dashboard at P projects × L locations, converged — how fast the overview
 * paints and filters in Chromium, how long the server takes to aggregate it, and how much memory
 * its read model holds.
 *
 * The read model is what the dashboard's informers would hold for a converged fleet of that size
 * (the shapes bench/fleet's fleet produces): P hub namespaces with a Ready NetworkBinding per
 * location, P project planes with Network `net`, a context and a Subnet per location, a hub copy
 * per context, L cells each holding P context copies and P Bound claims with their interfaces —
 * filled into the runtime's own Store, so the aggregation runs over the same store code it runs
 * over in `netpresence dashboard`. No API server: reaching this state through the fleet takes
 * ~9 minutes at 1000 × 10 (bench/fleet), and what is measured here is the dashboard alone.
 *
 * Measured:
 *   1. aggregate: `buildOverview` over the stores (p50 of 5);
 *   2. first paint: from navigation start to the first grid row in the document, in the page's
 *      own clock (Chromium 1280×800, Debian's chromium through playwright-core), p50 of 5 loads;
 *   3. filter: from the search box's input event to the grid showing only the match, in the
 *      page's clock, p50 of 5 searches;
 *   4. memory: the bench process's heap after a GC, with the read model and the server loaded,
 *      less the heap before it was built.
 *
 * Usage: npm run bench:dashboard -- [--projects P] [--locations L]   (node --expose-gc)
 */
import { pino } from 'pino';
import type { KubeObject } from '../../src/client/types.ts';
import { buildOverview, queryOverview } from '../../src/dashboard/overview.ts';
import { startDashboardServer } from '../../src/dashboard/server.ts';
import type { DashboardSources } from '../../src/dashboard/sources.ts';
import { Store } from '../../src/runtime/store.ts';
import type { PlaneReader } from '../../src/trace/reader.ts';
import { launchBrowser } from '../../test/support/browser.ts';
import { parseFlags, percentile } from '../flags.ts';

const args = parseFlags(process.argv.slice(2), { projects: 1000, locations: 10 });
const gc = (globalThis as { gc?: () => void }).gc;
const heap = () => {
  gc?.();
  return process.memoryUsage().heapUsed;
};

const ready = (reason = 'Ready') => ({
  conditions: [
    { type: 'Ready', status: 'True', reason, message: '', lastTransitionTime: '2026-12-03T10:00:00Z' },
  ],
});

function storeOf(objects: KubeObject[]): Store {
  const store = new Store();
  store.replace(objects);
  return store;
}

function readModel(P: number, L: number): DashboardSources {
  const locations = Array.from({ length: L }, (_, l) => `loc-${l}`);
  const projects = Array.from({ length: P }, (_, p) => `bench-p${p}`);
  const hubNs = (p: string) => `ns-${p}`;
  const meta = (name: string, namespace?: string, labels?: Record<string, string>) => ({
    name,
    ...(namespace && { namespace }),
    ...(labels && { labels }),
    creationTimestamp: '2026-12-03T09:59:00Z',
  });
  const context = (p: string, loc: string, namespace: string) => ({
    metadata: meta(`net-${loc}`, namespace),
    spec: { network: { name: 'net' }, location: { name: loc } },
    status: { ...ready(), ipam: { ipv6SubnetRef: { name: `net-${loc}-ipv6` } } },
  });
  const projectStores = new Map(
    projects.map((p) => [
      p,
      {
        networks: storeOf([{ metadata: meta('net', 'default') }]),
        contexts: storeOf(locations.map((loc) => context(p, loc, 'default'))),
        subnets: storeOf(
          locations.map((loc, l) => ({
            metadata: meta(`net-${loc}-ipv6`, 'default'),
            spec: { startAddress: `fd20:0:0:${l.toString(16)}::`, prefixLength: 64 },
          })),
        ),
        interfaces: storeOf([]),
        events: storeOf([]),
      },
    ]),
  );
  const cells = new Map(
    locations.map((loc) => [
      `cell-${loc}`,
      {
        servingLocations: storeOf([{ metadata: meta(loc) }]),
        contexts: storeOf(projects.map((p) => context(p, loc, hubNs(p)))),
        subnets: storeOf([]),
        claims: storeOf(
          projects.map((p) => ({
            metadata: meta(`c-${p}`, hubNs(p)),
            spec: { network: { name: 'net' } },
            status: {
              networkInterfaceRef: { name: `c-${p}` },
              conditions: [
                ...ready().conditions,
                { type: 'Bound', status: 'True', reason: 'Bound', message: '' },
              ],
            },
          })),
        ),
        interfaces: storeOf(
          projects.map((p) => ({
            metadata: meta(`c-${p}`, hubNs(p)),
            spec: { network: { name: 'net' }, claimRef: { name: `c-${p}` }, addresses: [] },
            status: { phase: 'Bound' },
          })),
        ),
        events: storeOf([]),
      },
    ]),
  );
  const hub = {
    namespaces: storeOf(
      projects.map((p) => ({
        metadata: meta(hubNs(p), undefined, {
          'meta.datumapis.com/upstream-cluster-name': `cluster-${p}`,
          'meta.datumapis.com/upstream-namespace': 'default',
        }),
      })),
    ),
    bindings: storeOf(
      projects.flatMap((p) =>
        locations.map((loc) => ({
          metadata: meta(`b-${loc}`, hubNs(p)),
          spec: { network: { name: 'net' }, location: { name: loc } },
          status: ready('NetworkContextReady'),
        })),
      ),
    ),
    contexts: storeOf(projects.flatMap((p) => locations.map((loc) => context(p, loc, hubNs(p))))),
    subnets: storeOf([]),
    policies: storeOf(locations.map((loc) => ({ metadata: meta(`location-${loc}`) }))),
    clusters: storeOf(
      locations.map((loc) => ({
        metadata: meta(`cell-${loc}`, undefined, { 'topology.datum.net/location': loc }),
      })),
    ),
    events: storeOf([]),
  };
  return {
    platform: {
      locations: storeOf(locations.map((loc) => ({ metadata: meta(loc) }))),
      events: storeOf([]),
      projects: storeOf([]),
    },
    hub,
    projectNames: () => [...projectStores.keys()],
    project: (p: string) => projectStores.get(p),
    cellNames: () => [...cells.keys()],
    cell: (c: string) => cells.get(c),
  } as unknown as DashboardSources;
}

const before = heap();
const sources = readModel(args.projects, args.locations);
const aggregate: number[] = [];
for (let i = 0; i < 5; i++) {
  const started = performance.now();
  buildOverview(sources);
  aggregate.push(performance.now() - started);
}
// The server's share of a filter: queryOverview with the search the page sends, on the cached overview.
const built = buildOverview(sources);
const query: number[] = [];
for (let i = 0; i < 20; i++) {
  const started = performance.now();
  queryOverview(built, { search: `bench-p${(i + 1) * 7}` });
  query.push(performance.now() - started);
}
const server = await startDashboardServer({
  sources,
  reader: {} as PlaneReader,
  host: '127.0.0.1',
  port: 0,
  log: pino({ level: 'silent' }),
});
const memory = heap() - before;

const browser = await launchBrowser();
const paint: number[] = [];
const filter: number[] = [];
/** Of each filter, the /api/overview round trip (request start to response end). */
const filterFetch: number[] = [];
/** Of each filter, from the input event to the end of the frame that draws the match. */
const filterFrame: number[] = [];
/** Of each filter, from the input event to the request's start. */
const filterToRequest: number[] = [];
try {
  for (let i = 0; i < 5; i++) {
    const page = await browser.page();
    // When the first grid row is in the document, in the page's own clock (ms since navigation).
    await page.addInitScript(() => {
      const g = globalThis as any;
      new g.MutationObserver((_: unknown, observer: any) => {
        if (g.document.querySelector('tr[data-row]')) {
          g.firstRowAt = g.performance.now();
          observer.disconnect();
        }
      }).observe(g.document, { childList: true, subtree: true });
    });
    await page.goto(server.url);
    await page.locator('tr[data-row]').first().waitFor();
    paint.push(await page.evaluate(() => (globalThis as any).firstRowAt as number));
    // From the search's input event to the grid showing the match, measured in the page.
    const wanted = `bench-p${(i + 1) * 7}`;
    // A string, not a function: tsx's transform would name the inner arrows with a helper the
    // page does not have.
    const [total, fetchMs, toRequest, toFrame] = await page.evaluate<
      [number, number, number, number]
    >(`new Promise((resolve) => {
        const rows = () => document.querySelectorAll('tr[data-row]');
        const input = document.querySelector('input[name="search"]');
        const started = performance.now();
        new MutationObserver((_, observer) => {
          const shown = [...rows()].map((row) => row.getAttribute('data-row'));
          if (shown[0] !== '${wanted}/net' || !shown.every((row) => row.startsWith('${wanted}'))) return;
          observer.disconnect();
          const shownAt = performance.now();
          const fetched = performance.getEntriesByType('resource').filter((e) => e.name.includes('search=')).at(-1);
          // The frame that draws it: style, layout and paint run after the frame's rAF callbacks.
          requestAnimationFrame(() => setTimeout(() => resolve([shownAt - started, fetched ? fetched.responseEnd - fetched.startTime : NaN, fetched ? fetched.startTime - started : NaN, performance.now() - started]), 0));
        }).observe(document.body, { childList: true, subtree: true, characterData: true });
        input.value = '${wanted}';
        input.dispatchEvent(new Event('input', { bubbles: true }));
      })`);
    filter.push(total);
    filterFrame.push(toFrame);
    filterFetch.push(fetchMs);
    filterToRequest.push(toRequest);
    await page.close();
  }
} finally {
  await browser.close();
  await server.stop();
}

const p50 = (values: number[]) =>
  percentile(
    [...values].sort((x, y) => x - y),
    50,
  ).toFixed(0);
console.log(
  `dashboard ${args.projects} × ${args.locations}: aggregate p50 ${p50(aggregate)} ms; first paint p50 ${p50(paint)} ms; ` +
    `filter p50 ${p50(filter)} ms (max ${Math.max(...filter).toFixed(0)}; to the frame drawn p50 ${p50(filterFrame)} ms, max ${Math.max(...filterFrame).toFixed(0)}; input to request p50 ${p50(filterToRequest)} ms; round trip p50 ${p50(filterFetch)} ms; server query p50 ${p50(query)} ms); read model + server heap ${(memory / 2 ** 20).toFixed(0)} MiB` +
    `${gc ? '' : ' (run with node --expose-gc for a GC before each heap reading)'}`,
);
