/**
 * The dashboard in a real Chromium against `netpresence up` (the default fleet, its dashboard
 * on a free loopback port): what a platform engineer sees, live, with no reload — the overview,
 * a pair's hops (the same as `netpresence trace binding`), the events view, keyboard reach and
 * axe-core's serious and critical findings on every view. Screenshots: test-output/dashboard/.
 *
 * Each test sets up what it needs on a network of its own (the fleet is the default one with
 * four networks in `demo`), so any one runs alone or in any order:
 * `node --import tsx --test --test-name-pattern=<name> test/e2e/dashboard-browser.test.ts`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { DEFAULT_FLEET_YAML } from '../../src/fleet/config.ts';
import { EVENTS, resourceIdOf } from '../../src/runtime/resource-ids.ts';
import { SOURCE_NAMESPACE_LABEL } from '../../src/apis/networking/v1alpha/interface-copy.ts';
import { locationKind } from '../../src/apis/networking/v1alpha/location.ts';
import { launchBrowser, screenshot, type Browser } from '../support/browser.ts';
import { startDashboardProcess } from '../support/dashboard-process.ts';
import {
  allWithin,
  conditionOf,
  GIVEN_WITHIN,
  KINDS,
  REPO_ROOT,
  startChildFleet,
  type Any,
  type ChildFleet,
} from '../support/fleet.ts';

const run = promisify(execFile);
const SHOTS = 'dashboard';
/** The acceptance's bound for the quick start's pair to turn Ready on an open page. */
const LIVE_WITHIN = 2000;
/** The bound for any view to show a change made through the API ("within 1 s"). */
const VIEW_LIVE_WITHIN = 1000;
const CELL = 'cell-us-central-1';
const EU_CELL = 'cell-eu-west-1';

/**
 * The default fleet, with a network per test that binds one: `default` (the quick start and
 * mars-1), `metrics` (throughput), `live` (the pair and cell views), `away` (reconnect).
 */
const NETWORKS = ['default', 'metrics', 'live', 'away'];
const FLEET_YAML = DEFAULT_FLEET_YAML.replace(
  '      - name: default\n        ipFamilies: [IPv6, IPv4]\n',
  NETWORKS.map((n) => `      - name: ${n}\n        ipFamilies: [IPv6, IPv4]\n`).join(''),
);

const AXE_SOURCE = await readFile(join(REPO_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it stands. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations: { id: string; impact: string; help: string; nodes: unknown[] }[] = await page.evaluate(
    async () => (await (globalThis as Any).axe.run((globalThis as Any).document)).violations,
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length} nodes)`);
}

function binding(ns: string, name: string, location: string, network = 'default') {
  return {
    metadata: { name, namespace: ns },
    spec: {
      network: { name: network },
      location: { name: location },
      consumer: { apiGroup: 'compute.datumapis.com', kind: 'WorkloadDeployment', name },
    },
  };
}

/** A hop line of `netpresence trace`: state mark, title, plane, object. */
function traceHops(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => line && !line.startsWith(' ') && !line.startsWith('verdict:'))
    .map((line) =>
      line
        .split(/\s{2,}/)
        .slice(0, 4)
        .join(' | '),
    );
}

const MARKS: Record<string, string> = {
  ok: 'ok',
  missing: 'MISSING',
  refusing: 'REFUSING',
  waiting: 'WAITING',
  unreachable: 'UNREADABLE',
  unchecked: '-',
};

describe('dashboard in Chromium', () => {
  let fleet: ChildFleet;
  let browser: Browser;
  let url: string;
  let ns: string;

  before(async () => {
    // Both kept whichever fails, so `after` closes what did start (a browser left open keeps
    // the test process alive). A cold `up` has taken over 60 s at a load of 26 on two cores.
    const [started, launched] = await Promise.allSettled([
      startChildFleet({ dashboard: true, config: FLEET_YAML, timeoutMs: 180_000 }),
      launchBrowser(),
    ]);
    if (started.status === 'fulfilled') fleet = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    assert.notEqual(FLEET_YAML, DEFAULT_FLEET_YAML, 'the test networks are in the fleet config');
    const line = fleet
      .stdout()
      .split('\n')
      .find((l) => l.startsWith('dashboard: '));
    assert.ok(line, fleet.stdout());
    url = line.slice('dashboard: '.length);
    ns = await fleet.hubNamespace('demo');
  });
  after(async () => {
    await browser?.close();
    await fleet?.dispose();
  });

  const pairCell = (page: Page, location: string, network = 'default') =>
    page.locator(`tr[data-row="demo/${network}"] td[data-location="${location}"]`);

  const bindings = () => fleet.client<Any>('hub', KINDS.networkBindings);

  /** A binding and a claim on `network` in us-central-1, Ready and Bound (the quick start's steps). */
  async function readyAndBound(network: string, name: string): Promise<void> {
    await bindings().create(binding(ns, name, 'us-central-1', network));
    await fleet.client(CELL, KINDS.claims).create({
      metadata: { name: `${name}-0`, namespace: ns },
      spec: { network: { name: network }, ipFamilies: ['IPv6', 'IPv4'] },
    });
    await allWithin(GIVEN_WITHIN, {
      [`${name} is Ready`]: async () =>
        conditionOf(await bindings().get(name, ns), 'Ready')?.status === 'True',
      [`${name}-0 is Bound`]: async () =>
        conditionOf(await fleet.client<Any>(CELL, KINDS.claims).get(`${name}-0`, ns), 'Bound')?.status ===
        'True',
    });
  }

  /** Waits for `locator` within the bound of a change, and says how long it took. */
  async function within(bound: number, locator: ReturnType<Page['locator']>, what: string): Promise<number> {
    const started = Date.now();
    await locator.waitFor({ timeout: bound }).catch((err: Error) => {
      throw new Error(`${what}: not shown within ${bound} ms of the change: ${err.message}`);
    });
    return Date.now() - started;
  }

  it('the overview shows demo/default in us-central-1 and eu-west-1, with no serious axe finding', async () => {
    const page = await browser.page();
    await page.goto(url);
    for (const location of ['us-central-1', 'eu-west-1']) {
      await pairCell(page, location).waitFor();
      await page.locator('thead th', { hasText: location }).waitFor();
    }
    for (const location of ['us-central-1', 'eu-west-1'])
      assert.match(
        await pairCell(page, location).locator('.state').innerText(),
        /^(not bound|Ready|refused: |waiting: )/,
      );
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, SHOTS, 'overview-1280');
    await page.setViewportSize({ width: 400, height: 800 });
    await screenshot(page, SHOTS, 'overview-400');
    await page.close();
  });

  it('after the quick start the pair turns Ready and the claim Bound on the open page, without a reload', async () => {
    const page = await browser.page();
    await page.goto(url);
    await pairCell(page, 'us-central-1').waitFor();
    // No other test binds demo/default in us-central-1: the pair starts unbound.
    assert.match(await pairCell(page, 'us-central-1').innerText(), /not bound/);
    let reloaded = false;
    page.on('load', () => (reloaded = true));
    await fleet.client('hub', KINDS.networkBindings).create(binding(ns, 'web', 'us-central-1'));
    await fleet.client(CELL, KINDS.claims).create({
      metadata: { name: 'web-0', namespace: ns },
      spec: { network: { name: 'default' }, ipFamilies: ['IPv6', 'IPv4'] },
    });
    await allWithin(GIVEN_WITHIN, {
      'web is Ready': async () =>
        conditionOf(await fleet.client<Any>('hub', KINDS.networkBindings).get('web', ns), 'Ready')?.status ===
        'True',
      'web-0 is Bound': async () =>
        conditionOf(await fleet.client<Any>(CELL, KINDS.claims).get('web-0', ns), 'Bound')?.status === 'True',
    });
    const cell = pairCell(page, 'us-central-1');
    await cell.locator('.state', { hasText: /^Ready$/ }).waitFor({ timeout: LIVE_WITHIN });
    await cell.getByText(`${CELL}: copy, 1/1 bound`).waitFor({ timeout: LIVE_WITHIN });
    assert.equal(reloaded, false, 'the page was reloaded');
    await screenshot(page, SHOTS, 'overview-ready');
    await page.close();
  });

  it('the throughput view charts what the manager and cells serve on /metrics, after the quick start', async () => {
    await readyAndBound('metrics', 'metrics');
    const page = await browser.page();
    await page.goto(`${url}#/throughput`);
    const targets = page.locator('ul.targets li');
    await targets.first().waitFor();
    const listed = await targets.locator('code').allInnerTexts();
    // The manager and each cell with controllers: every one scraped.
    assert.ok(listed.length >= 2, `targets: ${listed.join(', ')}`);
    await page.waitForFunction(
      () => !(globalThis as Any).document.querySelector('ul.targets')?.textContent?.includes('not answering'),
    );
    // The binding `metrics` turned Ready and its claim Bound (above).
    const manager = await (await fetch(listed[0])).text();
    const turned = /^netpresence_network_binding_ready_duration_seconds_count (\d+)$/m.exec(manager);
    assert.ok(turned && Number(turned[1]) >= 1, manager);
    await page
      .getByText(
        new RegExp(
          `Latest: [1-9]\\d* bindings Ready, [1-9]\\d* claims Bound; ${turned[1]} bindings turned Ready`,
        ),
      )
      .waitFor({ timeout: GIVEN_WITHIN });
    for (const title of ['Bindings Ready and claims Bound', 'Bindings Ready within N seconds of creation'])
      await page.locator(`figure[aria-label="${title}"] canvas`).waitFor();
    await screenshot(page, SHOTS, 'throughput-metrics');
    await page.close();
  });

  it('a binding for mars-1 shows LocationNotAvailable, and its pair page lists the hops trace binding prints', async () => {
    await fleet.client('hub', KINDS.networkBindings).create(binding(ns, 'web-mars', 'mars-1'));
    let message = '';
    await allWithin(GIVEN_WITHIN, {
      'web-mars is refused LocationNotAvailable': async () => {
        const ready = conditionOf(
          await fleet.client<Any>('hub', KINDS.networkBindings).get('web-mars', ns),
          'Ready',
        );
        message = ready?.message ?? '';
        return ready?.reason === 'LocationNotAvailable';
      },
    });
    const page = await browser.page();
    await page.goto(url);
    const cell = pairCell(page, 'mars-1');
    await cell.getByText('refused: LocationNotAvailable').waitFor({ timeout: LIVE_WITHIN });
    await screenshot(page, SHOTS, 'overview-mars');

    await cell.locator('a').click();
    await page.locator('[data-testid="verdict"]').waitFor();
    await page.getByText(message, { exact: false }).first().waitFor();
    const onPage = await page.locator('li.hop').evaluateAll((items) =>
      items.map((item) => ({
        state: item.getAttribute('data-state') ?? '',
        title: item.querySelector('.hop-title')?.textContent ?? '',
        plane: item.querySelector('.hop-plane')?.textContent ?? '',
        object: item.querySelector('.hop-object')?.textContent ?? '',
      })),
    );
    const traced = await run(
      process.execPath,
      [
        join(REPO_ROOT, 'bin/netpresence.js'),
        'trace',
        'binding',
        `${ns}/web-mars`,
        '--kubeconfig',
        fleet.kubeconfigPath,
      ],
      { timeout: 60_000 },
    ).catch((err: Any) => ({ stdout: String(err.stdout ?? '') }));
    assert.deepEqual(
      onPage.map((hop) => [MARKS[hop.state], hop.title, hop.plane, hop.object].join(' | ')),
      traceHops(traced.stdout),
    );
    assert.equal(
      await page.locator('[data-testid="verdict"]').innerText(),
      traced.stdout.trimEnd().split('\n').at(-1),
    );
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, SHOTS, 'pair-mars');
    await page.close();
  });

  it('the events view shows a Warning the test provokes, newest first', async () => {
    const page = await browser.page();
    await page.goto(`${url}#/events`);
    await page.locator('#events-title').waitFor();
    // A Location without a city code cannot be published: the location publisher warns.
    await fleet.client('platform', resourceIdOf(locationKind)).create({
      metadata: { name: 'nowhere' },
      spec: { locationClassName: 'datum-managed', topology: {}, provider: {} },
    });
    const row = page.locator('[data-testid="events"] tr', { hasText: 'MissingCityCode' });
    await row.first().waitFor({ timeout: GIVEN_WITHIN });
    assert.match(await row.first().innerText(), /nowhere/);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, SHOTS, 'events');
    await page.close();
  });

  it("the events view shows a project plane's Warning within 1 s, linked to the Network it regards", async () => {
    const page = await browser.page();
    await page.goto(`${url}#/events`);
    await page.locator('#events-title').waitFor();
    await page.getByTestId('live').getByText('Live', { exact: true }).waitFor();
    let reloaded = false;
    page.on('load', () => (reloaded = true));
    const now = new Date().toISOString();
    await fleet.client('project-demo', EVENTS).create({
      metadata: { name: `default.check-${Date.now()}`, namespace: 'default' },
      type: 'Warning',
      reason: 'ProbeUnreachable',
      note: 'the probe in eu-west-1 got no answer from the network default',
      action: 'Probe',
      eventTime: now,
      reportingController: 'example.com/prober',
      reportingInstance: 'prober-1',
      regarding: {
        apiVersion: 'networking.datumapis.com/v1alpha',
        kind: 'Network',
        namespace: 'default',
        name: 'default',
      },
    });
    const row = page.locator('[data-testid="events"] tr[data-plane="project-demo"]', {
      hasText: 'ProbeUnreachable',
    });
    const took = await within(VIEW_LIVE_WITHIN, row, 'the project Warning');
    assert.match(await row.innerText(), /Network default\/default/);
    assert.equal(reloaded, false, 'the page was reloaded');
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, SHOTS, 'events-project');
    // Its link opens the overview filtered to that project and network.
    await row.getByRole('link', { name: 'Network default/default' }).click();
    await page.locator('tr[data-row]').first().waitFor();
    assert.deepEqual(
      await page.locator('tr[data-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-row'))),
      ['demo/default'],
    );
    assert.equal(await page.locator('select[name="project"]').inputValue(), 'demo');
    assert.ok(took <= VIEW_LIVE_WITHIN, `${took} ms`);
    await page.close();
  });

  it('an open pair page shows a new binding, its claim and the project copy of its interface, each within 1 s', async () => {
    const page = await browser.page();
    await page.goto(`${url}#/pair/${ns}/live/us-central-1`);
    await page.getByText('No binding holds this pair.').waitFor();
    await page.getByTestId('live').getByText('Live', { exact: true }).waitFor();
    let reloaded = false;
    page.on('load', () => (reloaded = true));

    await bindings().create(binding(ns, 'live-pair', 'us-central-1', 'live'));
    const bindingTook = await within(
      VIEW_LIVE_WITHIN,
      page.locator('h3', { hasText: 'Binding live-pair' }),
      'the binding',
    );
    await fleet.client(CELL, KINDS.claims).create({
      metadata: { name: 'live-pair-0', namespace: ns },
      spec: { network: { name: 'live' }, ipFamilies: ['IPv6', 'IPv4'] },
    });
    const claimTook = await within(
      VIEW_LIVE_WITHIN,
      page.locator('[data-testid="interfaces"] td', { hasText: /^live-pair-0$/ }),
      'the claim',
    );

    // The interface the claim binds is shown in the project (issue 15) once the manager copies it.
    const copies = fleet.client<Any>('project-demo', KINDS.interfaces);
    let copy: Any;
    await allWithin(GIVEN_WITHIN, {
      'the project copy of live-pair-0’s interface has its addresses': async () => {
        copy = (await copies.list({ namespace: 'default' })).items.find(
          (c: Any) =>
            c.metadata.labels?.[SOURCE_NAMESPACE_LABEL] === ns &&
            c.metadata.labels?.['networking.datumapis.com/held-by'] === 'live-pair-0' &&
            (c.spec.addresses ?? []).length > 0,
        );
        return !!copy;
      },
    });
    const copyRow = page.locator(`[data-testid="copies"] tr[data-copy="${copy.metadata.name}"]`);
    const copyTook = await within(
      VIEW_LIVE_WITHIN,
      copyRow.getByText(copy.spec.addresses[0].address),
      'the copy',
    );
    assert.match(await copyRow.innerText(), new RegExp(`${CELL}[\\s\\S]*live-pair-0`));
    assert.equal(reloaded, false, 'the page was reloaded');
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, SHOTS, 'pair-live');
    for (const took of [bindingTook, claimTook, copyTook]) assert.ok(took <= VIEW_LIVE_WITHIN, `${took} ms`);
    await page.close();
  });

  it('an open cell page shows a new claim within 1 s', async () => {
    const page = await browser.page();
    await page.goto(`${url}#/cell/${EU_CELL}`);
    await page.getByText('Serves:').waitFor();
    await page.getByTestId('live').getByText('Live', { exact: true }).waitFor();
    let reloaded = false;
    page.on('load', () => (reloaded = true));
    await fleet.client(EU_CELL, KINDS.claims).create({
      metadata: { name: 'cell-live-0', namespace: ns },
      spec: { network: { name: 'live' }, ipFamilies: ['IPv6'] },
    });
    const took = await within(
      VIEW_LIVE_WITHIN,
      page.locator('li', { hasText: `${ns}/cell-live-0 (network live)` }),
      'the claim',
    );
    assert.equal(reloaded, false, 'the page was reloaded');
    await screenshot(page, SHOTS, 'cell-live');
    assert.ok(took <= VIEW_LIVE_WITHIN, `${took} ms`);
    await page.close();
  });

  it('the open page reconnects by itself when its dashboard restarts, and shows what changed meanwhile', async () => {
    const kubeconfig = join(fleet.dir, 'dashboard-kubeconfig');
    let dashboard = await startDashboardProcess(kubeconfig, '127.0.0.1:0');
    const listen = new URL(dashboard.url).host;
    const page = await browser.page();
    let reloaded = false;
    try {
      await page.goto(dashboard.url);
      page.on('load', () => (reloaded = true));
      const live = page.getByTestId('live');
      await live.getByText('Live', { exact: true }).waitFor();
      const away = pairCell(page, 'eu-west-1', 'away');
      assert.match(await away.innerText(), /not bound/);

      await dashboard.stop();
      await live.getByText('Reconnecting…').waitFor({ timeout: GIVEN_WITHIN });
      // A change while the page's source is away, settled before the dashboard is back: after the
      // page reconnects nothing changes any more, so only its refetch on reconnecting can show it.
      await bindings().create(binding(ns, 'away', 'eu-west-1', 'away'));
      await allWithin(GIVEN_WITHIN, {
        'away is Ready': async () =>
          conditionOf(await bindings().get('away', ns), 'Ready')?.status === 'True',
      });
      dashboard = await startDashboardProcess(kubeconfig, listen);

      await live.getByText('Live', { exact: true }).waitFor({ timeout: GIVEN_WITHIN });
      await away.getByText('bindings 1/1').waitFor({ timeout: GIVEN_WITHIN });
      assert.equal(reloaded, false, 'the page was reloaded');
      await screenshot(page, SHOTS, 'reconnected');
    } finally {
      await page.close();
      await dashboard.stop();
    }
  });

  it('the keyboard reaches every pair, and the other views have no serious axe finding', async () => {
    const page = await browser.page();
    await page.goto(url);
    await pairCell(page, 'us-central-1').waitFor();
    const pairs = await page
      .locator('a.pair-link')
      .evaluateAll((links) => links.map((l) => l.getAttribute('href')));
    // Every network of demo in both locations at least (a test before may add mars-1's column).
    assert.ok(pairs.length >= NETWORKS.length * 2, `pairs: ${pairs.join(', ')}`);
    const reached = new Set<string>();
    for (let i = 0; i < 100 && reached.size < pairs.length; i++) {
      await page.keyboard.press('Tab');
      const href = await page.evaluate(() => {
        const focused = (globalThis as Any).document.activeElement;
        return focused?.classList.contains('pair-link') ? (focused.getAttribute('href') as string) : null;
      });
      if (href) reached.add(href);
    }
    assert.deepEqual([...reached].sort(), [...pairs].sort() as string[]);
    await page.keyboard.press('Enter');
    await page.locator('#pair-title').waitFor();

    for (const [view, loaded] of [
      ['throughput', 'Latest:'],
      [`cell/${CELL}`, 'Serves:'],
    ]) {
      await page.goto(`${url}#/${view}`);
      await page.getByText(loaded).waitFor();
      assert.deepEqual(await seriousViolations(page), [], view);
      await screenshot(page, SHOTS, view.replace('/', '-'));
    }
    await page.close();
  });
});
