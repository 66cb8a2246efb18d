/**
 * The web feed's tests in Chromium: a hub seeded with things to show (web-seed.ts) beside a
 * browser with one watched page (browser.ts), and what the tests read off that page.
 */
import type { Browser } from 'playwright-core';
import { expect } from 'vitest';
import { launchBrowser, watchedPage, type WatchedPage } from './browser.js';
import { startTestHub, type TestHub } from './hub.js';
import { seedHub, type Seeded } from './web-seed.js';

export interface Feed {
  hub: TestHub;
  browser: Browser;
  view: WatchedPage;
  seeded: Seeded;
}

/** A seeded hub (`env` added to its settings), a browser, and one watched page in it. */
export async function startFeed(env: Record<string, string> = {}): Promise<Feed> {
  const feed: Partial<Feed> = { hub: await startTestHub(env) };
  try {
    [feed.seeded, feed.browser] = await Promise.all([seedHub(feed.hub!), launchBrowser()]);
    feed.view = await watchedPage(feed.browser);
    return feed as Feed;
  } catch (error) {
    await stopFeed(feed); // the file's afterAll never learns of what this did not return
    throw error;
  }
}

export async function stopFeed({ hub, browser }: Partial<Feed>): Promise<void> {
  await browser?.close();
  await hub?.destroy();
}

/** What the tests read off the watched page; `view` is asked for at each call, as beforeAll makes it. */
export function reading(view: () => WatchedPage) {
  /** An expression evaluated in the page (a string: this project's TypeScript has no DOM types). */
  const inPage = (expression: string): Promise<unknown> => view().page.evaluate(expression);
  return {
    text: () => view().page.locator('main').innerText(),
    inPage,
    /** The state badges on the page, as people read them. */
    badges: () => view().page.locator('main .state').allInnerTexts(),
    /** Nothing hostile ran on any page so far: no flag set, no dialog, no CSP refusal of the hub's own script or style. */
    async nothingRan(): Promise<void> {
      expect(await inPage('window.__pwned')).toBeUndefined();
      expect(view().dialogs).toEqual([]);
      expect(view().errors.filter((e) => /Content Security Policy|Refused/i.test(e))).toEqual([]);
    },
  };
}
