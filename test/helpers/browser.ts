/**
 * Real headless Chromium (Debian's, at /usr/bin/chromium) driven by playwright-core, for the web
 * feed's tests: one browser per file, a page that records every dialog, console error and request
 * URL it makes, and screenshots written to test-output/screens/ (ignored by git).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const SCREENS = fileURLToPath(new URL('../../test-output/screens/', import.meta.url));

/** Waits for apt's install of Chromium when it is still under way (at most `ms`). */
async function chromiumInstalled(ms = 120_000): Promise<void> {
  const until = Date.now() + ms;
  while (!existsSync(CHROMIUM)) {
    if (Date.now() > until) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does)`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

export async function launchBrowser(): Promise<Browser> {
  await chromiumInstalled();
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

export interface WatchedPage {
  page: Page;
  /** Every dialog (alert, confirm, prompt) any page opened: an injected script would open one. */
  dialogs: string[];
  /** Console errors, CSP refusals among them. */
  errors: string[];
  /** Every URL the page requested. */
  requests: string[];
}

export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const page = await (await browser.newContext()).newPage();
  const watched: WatchedPage = { page, dialogs: [], errors: [], requests: [] };
  page.on('dialog', (dialog) => {
    watched.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error') watched.errors.push(message.text());
  });
  page.on('pageerror', (error) => watched.errors.push(error.message));
  page.on('request', (request) => watched.requests.push(request.url()));
  return watched;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: `${SCREENS}${name}.png`, fullPage: true });
}
