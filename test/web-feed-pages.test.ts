/**
 * The web feed's pages in real headless Chromium: the home page for browsers only, the CSP and
 * safety headers on every page and asset, every page's content with hostile agent text shown as
 * text and never run, no private task reachable by following links, a closed call read as closed,
 * and pages read without JavaScript. Live pages: web-feed-live.test.ts; signed in: web-feed-inbox.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ADMIN_TOKEN, rest, rpc, type TestHub } from './helpers/hub.js';
import { testPostgres } from './helpers/postgres.js';
import { screenshot, type WatchedPage } from './helpers/browser.js';
import { reading, startFeed, stopFeed } from './helpers/web-feed.js';
import type { Seeded } from './helpers/web-seed.js';

let hub: TestHub;
let browser: Browser;
let view: WatchedPage;
let seeded: Seeded;

beforeAll(async () => {
  ({ hub, browser, view, seeded } = await startFeed());
}, 60_000);

afterAll(() => stopFeed({ hub, browser }));

const { text, inPage, badges, nothingRan } = reading(() => view);

async function visit(path: string): Promise<string> {
  const response = await view.page.goto(`${hub.url}${path.replace(/^\//, '')}`);
  expect(response?.status(), path).toBe(200);
  return text();
}

/** What A2A calls its states: never what a page shows. */
const RAW_STATES = /^(submitted|working|completed|canceled|input[ -]required|auth[ -]required|TASK_STATE_\w+)$/;

describe('the web feed in Chromium', () => {
  it("GET / is the home page for a browser only; A2A clients and other callers get the front door's JSON index", async () => {
    const page = await fetch(hub.url, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const other = await fetch(hub.url, { headers: accept ? { accept } : {} });
      expect(other.status, String(accept)).toBe(200); // its shape: test/front-door.test.ts
      expect(((await other.json()) as { name: string }).name).toBe('Muster');
      expect(other.headers.get('content-security-policy')).toBeNull();
    }
    const forged = await fetch(hub.url, { headers: { authorization: 'Bearer mst_forged' } });
    expect(forged.status).toBe(401);
    expect(forged.headers.get('content-type')).toMatch(/^application\/json/);
    const card = await fetch(`${hub.url}.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    const read = await rpc(hub.url, 'GetTask', { id: seeded.callId });
    expect(read.body.result.id).toBe(seeded.callId);
  });

  it('every page and asset carries the CSP and safety headers, no CORS, and no inline script', async () => {
    for (const path of [
      '',
      'feed/reviews',
      'feed/agents/alice',
      'feed/signin',
      'feed/inbox',
      'feed/assets/feed.js',
      'feed/assets/feed.css',
      'feed/tasks/no-such-task',
    ]) {
      const res = await fetch(`${hub.url}${path}`, {
        headers: { accept: 'text/html', origin: 'https://elsewhere.example' },
      });
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      const body = await res.text();
      if (res.headers.get('content-type')?.startsWith('text/html')) {
        expect(body.match(/<script\b[^>]*>/g) ?? []).toEqual(['<script src="/feed/assets/feed.js" defer>']);
        expect(body).not.toMatch(/<[^>]*\s(?:style|on[a-z]+)=/i); // no inline style or handler in any tag
      }
    }
    expect((await fetch(`${hub.url}feed/tasks/no-such-task`)).status).toBe(404);
  });

  it('each page shows what it should, linked to what it mentions, and hostile text only as text', async () => {
    const home = await visit('/');
    expect(home).toContain('Open calls');
    expect(home).toContain("<script>window.__pwned='call-title'</script>"); // shown as the text it is
    for (const list of ['Reviews', 'Calls', 'Spaces', 'Boards', 'Agents', 'Status', 'Inbox']) {
      expect(await view.page.getByRole('link', { name: list, exact: true }).count(), list).toBeGreaterThan(0);
    }
    expect(await view.page.locator('a.skip').getAttribute('href')).toBe('#main');
    expect(await view.page.locator('html').getAttribute('lang')).toBe('en');
    await screenshot(view.page, 'home');

    expect(await badges()).toEqual(expect.arrayContaining(['open', 'landed'])); // a call, an intent: in their words

    const call = await visit(`/feed/calls/${seeded.callId}`);
    expect(call).toContain('An open call');
    expect(await badges()).toEqual(['open']);
    expect(call).toContain("<script>window.__pwned='call-question'</script>");
    expect(call).toContain('Answers (1)');
    expect(call).toContain("support <script>window.__pwned='call-answer'</script>");
    await screenshot(view.page, 'call');

    const space = await visit('/feed/spaces/links');
    expect(space).toMatch(
      /Open \(1\)[\s\S]*Claim this next[\s\S]*Landed \(1\)[\s\S]*Landed: <script>window.__pwned='landing-summary'/,
    );
    expect(await view.page.locator(`a[href="/feed/tasks/${seeded.landedId}"]`).count()).toBe(1);
    expect(await view.page.locator('a[href="/feed/agents/worker"]').count()).toBeGreaterThan(0);
    await screenshot(view.page, 'space');

    expect(await badges()).toEqual(['open', 'landed']);

    const intent = await visit(`/feed/tasks/${seeded.landedId}`);
    expect(await badges()).toEqual(['landed']);
    // Its message's data reads as fields, the footprint as a list: no JSON in prose.
    expect(await view.page.locator('ol.messages dl.fields dt').allInnerTexts()).toEqual(['Footprint']);
    expect(await view.page.locator('ol.messages dl.fields dd li').allInnerTexts()).toEqual(['src/links/**']);
    expect(await view.page.content()).not.toMatch(/\{(&quot;|")footprint/);
    await screenshot(view.page, 'intent');
    expect(intent).toContain('Commit abc1234');
    expect(intent).toContain("src/<script>window.__pwned='file-name'</script>");
    expect(await view.page.locator('a[href="/feed/spaces/links"]').count()).toBe(1);

    const boards = await visit('/feed/boards');
    expect(boards).toContain("Public <script>window.__pwned='board-title'");
    expect(boards).not.toContain('PRIVATE-BOARD');
    await visit(`/feed/boards/${seeded.publicBoardId}`);
    expect(await view.page.locator('svg.graph line.edge').count()).toBe(2);
    expect(await view.page.locator('svg.graph circle.node').count()).toBe(3);
    expect(await text()).toContain("<script>window.__pwned='card-text'</script>");
    await screenshot(view.page, 'board');

    const agents = await visit('/feed/agents');
    expect(agents).toMatch(/alice[\s\S]*bob[\s\S]*worker/);
    const alice = await visit('/feed/agents/alice');
    expect(alice).toContain("<script>window.__pwned='sn'</script>");
    expect(alice).toContain("<script>window.__pwned='skill-description'</script>");
    expect(await view.page.locator('a[href="/agents/alice/.well-known/agent-card.json"]').count()).toBe(1);
    expect(await view.page.locator('a[href="https://alice.example/a2a/"]').count()).toBe(1);
    await screenshot(view.page, 'agent');

    const status = await visit('/feed/status');
    expect(status).toContain(testPostgres ? 'postgres' : 'sqlite');
    expect(status).toMatch(/Version\s+\d+\.\d+\.\d+/);
    expect(status).toContain('(this node)'); // the node answering lists itself
    expect(await view.page.locator('.nodes li').count()).toBeGreaterThanOrEqual(1);
    expect(status).toMatch(/[1-9]\d* in 24 hours/); // the public review and call seeded above count
    expect(await view.page.locator('svg[role="img"]').count()).toBeGreaterThanOrEqual(1);
    await screenshot(view.page, 'status');

    expect(await view.page.locator('a[href^="javascript:"]').count()).toBe(0);
    await nothingRan();
  });

  it('following every link from the home page reaches no private task, board or text, and runs nothing hostile', async () => {
    const seen = new Set<string>(['/']);
    const queue = ['/'];
    while (queue.length > 0) {
      const path = queue.shift()!;
      const response = await view.page.goto(`${hub.url}${path.slice(1)}`);
      expect(response?.status(), path).toBe(200);
      const page = await view.page.content();
      for (const secret of seeded.secrets) expect(page, `${path} shows ${secret}`).not.toContain(secret);
      for (const word of await badges()) expect(word, `${path} shows a raw state`).not.toMatch(RAW_STATES);
      const links = (await inPage(
        'Array.from(document.querySelectorAll("a[href]"), (a) => new URL(a.getAttribute("href"), location.href).href)',
      )) as string[]; // SVG links too
      for (const href of links) {
        const url = new URL(href);
        if (
          url.origin !== new URL(hub.url).origin ||
          !(url.pathname === '/' || url.pathname.startsWith('/feed/')) ||
          seen.has(url.pathname)
        )
          continue;
        seen.add(url.pathname);
        queue.push(url.pathname);
      }
    }
    expect(seen.size).toBeGreaterThan(15);
    expect([...seen]).toEqual(
      expect.arrayContaining([
        `/feed/calls/${seeded.callId}`,
        `/feed/tasks/${seeded.claimableId}`,
        `/feed/boards/${seeded.publicBoardId}`,
        '/feed/agents/bob',
        '/feed/spaces/links',
      ]),
    );
    // The task itself, asked for by id, is "not found" like a task that does not exist.
    expect((await fetch(`${hub.url}feed/tasks/${seeded.directTaskId}`)).status).toBe(404);
    await nothingRan();
  });

  it('a closed call reads closed, on its page and in the list, never "completed" or "open"', async () => {
    const opened = await rpc(
      hub.url,
      'SendMessage',
      {
        message: {
          messageId: `c-${Date.now()}`,
          role: 'ROLE_USER',
          parts: [{ data: { skill: 'call.open', args: { title: 'Closing soon', question: 'Still there?' } } }],
        },
      },
      { token: ADMIN_TOKEN },
    );
    const id = (opened.body.result.task ?? opened.body.result).id as string;
    expect((await rest(hub, 'POST', `api/tasks/${id}/close`, { token: ADMIN_TOKEN, body: {} })).status).toBe(200);
    const page = await visit(`/feed/calls/${id}`);
    expect(await badges()).toEqual(['closed']);
    expect(page).toContain('A closed call');
    expect(page).not.toMatch(/open call|completed/i);
    await screenshot(view.page, 'call-closed');
    await visit('/feed/calls');
    const closed = view.page.locator('section', { has: view.page.getByRole('heading', { name: 'Closed calls' }) });
    expect(await closed.locator('li', { hasText: 'Closing soon' }).locator('.state').innerText()).toBe('closed');
  });

  it('reads without JavaScript: every list and page is in the HTML the hub sends', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(hub.url);
      expect(await page.locator(`a[href="/feed/calls/${seeded.callId}"]`).count()).toBeGreaterThanOrEqual(1);
      for (const href of [
        '/feed/reviews',
        '/feed/calls',
        '/feed/spaces',
        '/feed/boards',
        '/feed/agents',
        '/feed/status',
      ]) {
        expect(await page.locator(`nav a[href="${href}"]`).count(), href).toBe(1);
      }
      await page.goto(`${hub.url}feed/spaces/links`);
      expect(await page.locator('main').innerText()).toContain('Claim this next');
      await page.goto(`${hub.url}feed/boards/${seeded.publicBoardId}`);
      expect(await page.locator('main ol.cards li').count()).toBeGreaterThanOrEqual(1);
      await page.goto(`${hub.url}feed/status`);
      expect(await page.locator('main').innerText()).toMatch(/Version\s+\d+\.\d+\.\d+/);
    } finally {
      await context.close();
    }
  });
});
