/**
 * The web feed's live pages in real headless Chromium: a review appearing on the open home page
 * without a reload and its Evaluation after the deadline (on PostgreSQL, posted through a second
 * node while the browser watches the first), its contributions sealed until then and the private
 * task never on the stream, and a live page's stream closed while its tab is hidden.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ADMIN_TOKEN, register, rpc, type Registered, type TestHub } from './helpers/hub.js';
import { testPostgres } from './helpers/postgres.js';
import { startNode, type NodeProcess } from './helpers/nodes.js';
import { sdkClient } from './helpers/sdk.js';
import { contribution, openData, reviewRequest, sendData } from './helpers/review.js';
import { screenshot, type WatchedPage } from './helpers/browser.js';
import { reading, startFeed, stopFeed } from './helpers/web-feed.js';
import type { Seeded } from './helpers/web-seed.js';

let hub: TestHub;
let second: NodeProcess | undefined;
let browser: Browser;
let view: WatchedPage;
let seeded: Seeded;
let poster: Registered;
let c1: Registered;
let c2: Registered;

const REVIEW_ENV = { MUSTER_REVIEW_MIN_DEADLINE_S: '1' };

beforeAll(async () => {
  ({ hub, browser, view, seeded } = await startFeed(REVIEW_ENV));
  // On PostgreSQL a second node shares the database: the review is posted there while the browser watches the first.
  if (testPostgres)
    second = await startNode('B', {
      db: hub.db.url,
      cwd: hub.db.dir,
      env: { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN, ...REVIEW_ENV },
    });
  [poster, c1, c2] = await Promise.all([register(hub, 'poster'), register(hub, 'c-one'), register(hub, 'c-two')]);
}, 60_000);

afterAll(async () => {
  await second?.stop();
  await stopFeed({ hub, browser });
});

/** Where reviews are posted: the second node on PostgreSQL, else the hub the browser watches. */
const postingUrl = () => second?.url ?? hub.url;

const { text, inPage, badges, nothingRan } = reading(() => view);

/** Makes the tab hidden or shown, as switching tabs does, and tells the page. */
const shown = (visible: boolean) =>
  `Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${!visible} }); document.dispatchEvent(new Event('visibilitychange'))`;

describe('the web feed in Chromium', () => {
  it('a review posted over A2A appears on the open home page without a reload; its contributions stay sealed until the Evaluation shows them', async () => {
    await view.page.goto(hub.url);
    await view.page.waitForSelector('body[data-feed="open"]');
    await inPage('window.__samePage = true');

    // A raw reader of the live stream beside the browser: it must never carry the private task.
    const events = await fetch(`${hub.url}feed/events`);
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(events.headers.get('content-security-policy')).toContain("default-src 'none'");
    const reader = events.body!.getReader();
    let streamed = '';
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        streamed += new TextDecoder().decode(value);
      }
    })();

    const title = `Live review ${Date.now()}`;
    const request = reviewRequest(6_000, { title });
    const posted = await sendData(await sdkClient(postingUrl(), poster.token), openData(request));
    await view.page.locator('#open-reviews').getByRole('link', { name: title }).waitFor({ timeout: 5_000 });
    expect(await inPage('window.__samePage')).toBe(true); // the same document: no reload
    expect(await text()).toMatch(/left/); // the countdown

    const sealed = `SEALED-${Date.now()}`;
    for (const agent of [c1, c2]) {
      const answer = await sendData(
        await sdkClient(postingUrl(), agent.token),
        contribution('source_supported', { summary: `${sealed} ${agent.handle}` }),
        posted.id,
      );
      expect(answer.metadata.muster.receipt.contribution.sealed_until_deadline).toBe(true);
    }
    // The private direct task changes while the stream is open: the feed says nothing of it.
    await rpc(
      `${hub.url}agents/bob/`,
      'SendMessage',
      {
        message: {
          messageId: `m-${Date.now()}`,
          role: 'ROLE_USER',
          parts: [{ text: seeded.directText }],
          taskId: seeded.directTaskId,
        },
      },
      { token: seeded.alice.token },
    );

    await view.page.locator('#open-reviews').getByRole('link', { name: title }).click();
    await view.page.waitForURL(`**/feed/reviews/${posted.id}`);
    await view.page.waitForSelector('body[data-feed="open"]');
    expect(await text()).toContain('sealed until the deadline');
    expect(await view.page.content()).not.toContain(sealed);
    await inPage('window.__samePage = true');

    await view.page.getByText(/Resolved: all 2 contributions agree/).waitFor({ timeout: 15_000 });
    expect(await inPage('window.__samePage')).toBe(true); // the same document: no reload
    expect(await text()).toContain(`${sealed} c-one`);
    expect(await view.page.locator('svg.bars rect.bar').count()).toBe(3);
    expect(await badges()).toEqual(['resolved']); // evaluated: its outcome, not "completed"
    expect(await text()).toContain('A review, evaluated');
    await screenshot(view.page, 'review-evaluated');

    await reader.cancel();
    await reading.catch(() => undefined);
    expect(streamed).toContain(posted.id);
    expect(streamed).toContain('TASK_STATE_COMPLETED');
    for (const secret of seeded.secrets) expect(streamed).not.toContain(secret);
    expect(streamed).not.toContain(sealed);
    await nothingRan();
  });

  it('a live page closes its stream while the tab is hidden and opens it again when shown', async () => {
    await view.page.goto(`${hub.url}feed/reviews`);
    await view.page.waitForSelector('body[data-feed="open"]');
    await inPage(shown(false));
    expect(await view.page.locator('body').getAttribute('data-feed')).toBe('paused');
    await inPage(shown(true));
    await view.page.waitForSelector('body[data-feed="open"]');
  });
});
