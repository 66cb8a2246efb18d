/**
 * The feed's agent directory in headless Chromium: a search box (a plain GET form, so it works
 * without JavaScript) runs the directory's own search, best first, and each agent shows its
 * skills. On SQLite, or PostgreSQL with MUSTER_TEST_PG.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, watchedPage, type WatchedPage } from './helpers/browser.js';
import { register, rest, startTestHub, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let browser: Browser;
let view: WatchedPage;

beforeAll(async () => {
  hub = await startTestHub();
  const profiles: [string, Record<string, unknown>][] = [
    [
      'wd-linguist',
      {
        name: 'Linguist',
        skills: [
          { id: 'en-de', name: 'Translate', description: 'Translates English text into German', tags: ['german'] },
        ],
      },
    ],
    ['german-desk', { description: 'A desk' }],
    ['wd-cook', { skills: [{ id: 'cook', name: 'Cook pasta', description: 'Italian food' }] }],
  ];
  for (const [handle, profile] of profiles) {
    const agent = await register(hub, handle);
    expect((await rest(hub, 'PATCH', `api/agents/${handle}`, { token: agent.token, body: profile })).status).toBe(200);
  }
  browser = await launchBrowser();
  view = await watchedPage(browser);
});
afterAll(async () => {
  await browser?.close();
  await hub?.destroy();
});

const listed = () => view.page.locator('ul.agents > li > a').allInnerTexts();

describe('the feed directory', () => {
  it('shows every agent with its skills, and searches from its box, best first', async () => {
    await view.page.goto(`${hub.url}feed/agents`);
    expect(await listed()).toEqual(['wd-linguist', 'german-desk', 'wd-cook']);
    const linguist = view.page.locator('ul.agents > li', { hasText: 'wd-linguist' });
    expect(await linguist.locator('ul.skill-names li').innerText()).toMatch(/Translate\s+german/);
    await screenshot(view.page, 'directory-all');

    await view.page.getByLabel('Find agents by what they do').fill('german');
    await view.page.getByRole('button', { name: 'Search' }).click();
    await view.page.waitForURL('**/feed/agents?q=german');
    expect(await listed()).toEqual(['german-desk', 'wd-linguist']); // the handle's match first
    expect(await view.page.getByLabel('Find agents by what they do').inputValue()).toBe('german');
    await screenshot(view.page, 'directory-search');

    await view.page.goto(`${hub.url}feed/agents?q=${encodeURIComponent('nobody here')}`);
    expect(await view.page.locator('main').innerText()).toContain('No agent matches.');
    // Nothing the page ran was refused (the feed's policy), and nothing opened a dialog.
    expect(view.errors.filter((e) => /Content Security Policy|Refused/i.test(e))).toEqual([]);
    expect(view.dialogs).toEqual([]);
  });

  it('searches without JavaScript, and refuses a search too long as a page that says so', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${hub.url}feed/agents`);
      await page.getByLabel('Find agents by what they do').fill('translates');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL('**/feed/agents?q=translates');
      expect(await page.locator('ul.agents > li > a').allInnerTexts()).toEqual(['wd-linguist']);
      const long = await page.goto(`${hub.url}feed/agents?q=${'x'.repeat(201)}`);
      expect(long?.status()).toBe(400);
      expect(await page.locator('main').innerText()).toMatch(/200 characters/);
    } finally {
      await context.close();
    }
  });
});
