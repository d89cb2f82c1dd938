/**
 * A real Chromium for browser tests: Debian's `chromium` package driven by playwright-core (no
 * browser download), headless, with a fresh profile in a temporary directory and nothing that
 * reaches the network by itself. Screenshots go under `test-output/` (not committed).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { REPO_ROOT } from './fleet.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const TEST_OUTPUT = join(REPO_ROOT, 'test-output');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  page(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

export function requireChromium(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(`browser tests need Debian's chromium at ${CHROMIUM}: apt-get install -y chromium`);
}

export async function launchBrowser(): Promise<Browser> {
  requireChromium();
  const profile = await mkdtemp(join(tmpdir(), 'netpresence-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 800 },
  });
  return {
    context,
    async page(viewport) {
      const page = await context.newPage();
      if (viewport) await page.setViewportSize(viewport);
      return page;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot of `page` as test-output/<folder>/<name>.png. */
export async function screenshot(page: Page, folder: string, name: string): Promise<void> {
  const dir = join(TEST_OUTPUT, folder);
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
