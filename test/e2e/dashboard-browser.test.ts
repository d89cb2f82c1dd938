/**
 * The dashboard in a real Chromium against `netpresence up` (the default fleet, its dashboard
 * on a free loopback port): what a platform engineer sees, live, with no reload — the overview,
 * a pair's hops (the same as `netpresence trace binding`), the events view, keyboard reach and
 * axe-core's serious and critical findings on every view. Screenshots: test-output/dashboard/.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { resourceIdOf } from '../../src/runtime/resource-ids.ts';
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
/** The bound for a change to reach an open page. */
const LIVE_WITHIN = 2000;
const CELL = 'cell-us-central-1';

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

function binding(ns: string, name: string, location: string) {
  return {
    metadata: { name, namespace: ns },
    spec: {
      network: { name: 'default' },
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
    [fleet, browser] = await Promise.all([startChildFleet({ dashboard: true }), launchBrowser()]);
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

  const pairCell = (page: Page, location: string) =>
    page.locator(`tr[data-row="demo/default"] td[data-location="${location}"]`);

  it('the overview shows demo/default in us-central-1 and eu-west-1, with no serious axe finding', async () => {
    const page = await browser.page();
    await page.goto(url);
    for (const location of ['us-central-1', 'eu-west-1']) {
      await pairCell(page, location).waitFor();
      await page.locator('thead th', { hasText: location }).waitFor();
    }
    assert.match(await pairCell(page, 'us-central-1').innerText(), /not bound/);
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
    // The quick start's binding turned Ready and its claim Bound (the test before).
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
      const eu = pairCell(page, 'eu-west-1');
      assert.match(await eu.innerText(), /not bound/);

      await dashboard.stop();
      await live.getByText('Reconnecting…').waitFor({ timeout: GIVEN_WITHIN });
      // A change while the page's source is away: the restarted dashboard must show it.
      await fleet.client('hub', KINDS.networkBindings).create(binding(ns, 'api', 'eu-west-1'));
      dashboard = await startDashboardProcess(kubeconfig, listen);

      await live.getByText('Live', { exact: true }).waitFor({ timeout: GIVEN_WITHIN });
      await eu.getByText(/bindings \d\/1/).waitFor({ timeout: GIVEN_WITHIN });
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
    assert.ok(pairs.length >= 3, `pairs: ${pairs.join(', ')}`);
    const reached = new Set<string>();
    for (let i = 0; i < 60 && reached.size < pairs.length; i++) {
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
