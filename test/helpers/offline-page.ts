/**
 * Headless Chromium for the report tests: one page that records console errors and page errors, and refuses
 * (and records) every request that is not file:, data: or blob: — the report must work offline.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Chromium's flags for a headless run that reaches no network service of its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface OfflinePage {
  browser: Browser;
  page: Page;
}

/** The page, or null (with a line saying so) when Chromium is not installed: the browser checks skip. */
export async function openOfflinePage(problems: string[], external: string[]): Promise<OfflinePage | null> {
  if (!existsSync(CHROMIUM)) {
    console.log(`    (browser checks skipped: ${CHROMIUM} not found; install Debian "chromium" or set CHROMIUM_PATH)`);
    return null;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 90000 });
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    external.push(url);
    return route.abort();
  });
  return { browser, page };
}
