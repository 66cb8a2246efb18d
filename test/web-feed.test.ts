/**
 * The web feed in real headless Chromium: every page's content, hostile agent text shown as text
 * and never run, no private task reachable by following links, a review appearing live and its
 * Evaluation after the deadline (on PostgreSQL, posted through a second node while the browser
 * watches the first), a signed-in person answering a task seen completed over A2A, pages read
 * without JavaScript, and the feed used by keyboard alone (signing in, cancelling a sent task).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ADMIN_TOKEN, register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { testPostgres } from './helpers/postgres.js';
import { startNode, type NodeProcess } from './helpers/nodes.js';
import { sdkClient, wire } from './helpers/sdk.js';
import { contribution, openData, reviewRequest, sendData } from './helpers/review.js';
import { launchBrowser, screenshot, watchedPage, type WatchedPage } from './helpers/browser.js';
import { seedHub, type Seeded } from './helpers/web-seed.js';

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
  hub = await startTestHub(REVIEW_ENV);
  // On PostgreSQL a second node shares the database: the review is posted there while the browser watches the first.
  if (testPostgres)
    second = await startNode('B', {
      db: hub.db.url,
      cwd: hub.db.dir,
      env: { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN, ...REVIEW_ENV },
    });
  [seeded, browser] = await Promise.all([seedHub(hub), launchBrowser()]);
  [poster, c1, c2] = await Promise.all([register(hub, 'poster'), register(hub, 'c-one'), register(hub, 'c-two')]);
  view = await watchedPage(browser);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await second?.stop();
  await hub?.destroy();
});

/** Where reviews are posted: the second node on PostgreSQL, else the hub the browser watches. */
const postingUrl = () => second?.url ?? hub.url;

const text = () => view.page.locator('main').innerText();

/** An expression evaluated in the page (a string: this project's TypeScript has no DOM types). */
const inPage = (expression: string): Promise<unknown> => view.page.evaluate(expression);

/** Makes the tab hidden or shown, as switching tabs does, and tells the page. */
const shown = (visible: boolean) =>
  `Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${!visible} }); document.dispatchEvent(new Event('visibilitychange'))`;

async function visit(path: string): Promise<string> {
  const response = await view.page.goto(`${hub.url}${path.replace(/^\//, '')}`);
  expect(response?.status(), path).toBe(200);
  return text();
}

/** The state badges on the page, as people read them. */
const badges = () => view.page.locator('main .state').allInnerTexts();

/** What A2A calls its states: never what a page shows. */
const RAW_STATES = /^(submitted|working|completed|canceled|input[ -]required|auth[ -]required|TASK_STATE_\w+)$/;

/** Nothing hostile ran on any page so far: no flag set, no dialog, no CSP refusal of the hub's own script or style. */
async function nothingRan(): Promise<void> {
  expect(await inPage('window.__pwned')).toBeUndefined();
  expect(view.dialogs).toEqual([]);
  expect(view.errors.filter((e) => /Content Security Policy|Refused/i.test(e))).toEqual([]);
}

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

  it('signed in with a token, a person opens a task at its own URL, answers it (the only action the receiver has), sees it done over A2A, and signs out', async () => {
    const taskPath = `feed/inbox/tasks/${seeded.directTaskId}`;
    // Signed out, the task's URL shows nothing of it and leads to signing in, then back to it.
    await view.page.goto(`${hub.url}${taskPath}`);
    expect(await text()).toContain('Not signed in');
    expect(await view.page.content()).not.toContain(seeded.directText);
    await view.page.locator('main').getByRole('link', { name: 'Sign in' }).click();
    await view.page.getByLabel('Token').fill(seeded.bob.token);
    await view.page.getByRole('button', { name: 'Sign in' }).click();
    await view.page.waitForURL(`**/${taskPath}`);
    expect(await inPage("sessionStorage.getItem('muster.token')")).toBe(seeded.bob.token);
    await view.page.waitForSelector(`#task-detail[data-task="${seeded.directTaskId}"]`);
    expect(await view.page.locator('#task-detail .state').innerText()).toBe('new');
    expect(await text()).toContain('alice wrote:');
    // bob receives it: he may respond, and not cancel (only its sender may).
    expect(await view.page.getByRole('button', { name: 'Cancel task' }).count()).toBe(0);

    // The inbox links the task to that URL, its state in words.
    await view.page.getByRole('link', { name: 'Back to the inbox' }).click();
    await view.page.waitForURL('**/feed/inbox');
    const item = view.page.locator('.mail-item', { hasText: seeded.directText }).first();
    expect(await item.getByRole('link').getAttribute('href')).toBe(`/${taskPath}`);
    expect(await item.locator('.state').innerText()).toBe('new');
    expect(await item.innerText()).toContain('from alice');
    await screenshot(view.page, 'inbox');
    await item.getByRole('link').click();
    await view.page.waitForURL(`**/${taskPath}`);

    expect(await view.page.locator('#respond-state option').allInnerTexts()).toEqual([
      'in progress',
      "needs the sender's answer",
      'done',
      'failed',
      'rejected',
    ]);
    await view.page.getByLabel('State').selectOption('TASK_STATE_COMPLETED');
    await view.page.getByLabel('Message').fill('Done, from the web feed.');
    await screenshot(view.page, 'inbox-task');
    await view.page.getByRole('button', { name: 'Respond' }).click();
    await view.page.waitForSelector('#task-detail[data-state="TASK_STATE_COMPLETED"]');
    // Finished: nothing more is offered.
    expect(await view.page.locator('#task-detail .state').innerText()).toBe('done');
    expect(await view.page.getByRole('button', { name: 'Respond' }).count()).toBe(0);
    expect(await view.page.getByRole('button', { name: 'Cancel task' }).count()).toBe(0);
    expect(await text()).toContain('This task is done');
    expect(await text()).toMatch(/bob wrote:\s+Done, from the web feed\./);
    await screenshot(view.page, 'inbox-task-done');

    const asAlice = await sdkClient(`${hub.url}agents/bob/`, seeded.alice.token);
    const task = wire(await asAlice.getTask({ tenant: '', id: seeded.directTaskId, historyLength: 10 } as never));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(task)).toContain('Done, from the web feed.');

    await view.page.getByRole('button', { name: 'Sign out' }).click();
    await view.page.waitForURL('**/feed/signin');
    expect(await inPage('sessionStorage.length')).toBe(0);
    // The token went only in headers: never in a URL the browser asked for, nor in a cookie.
    expect(view.requests.filter((url) => url.includes(seeded.bob.token))).toEqual([]);
    expect(await view.page.context().cookies()).toEqual([]);
    await nothingRan();
  });

  it('a task URL shows only what the signed-in agent may read: a third agent sees "not found" and none of its words', async () => {
    await view.page.goto(`${hub.url}feed/signin`);
    await view.page.getByLabel('Token').fill(seeded.worker.token);
    await view.page.getByRole('button', { name: 'Sign in' }).click();
    await view.page.waitForURL('**/feed/inbox');
    await view.page.goto(`${hub.url}feed/inbox/tasks/${seeded.directTaskId}`);
    await view.page
      .locator('#task-error')
      .filter({ hasText: /not found|no task/i })
      .waitFor();
    expect(await view.page.content()).not.toContain(seeded.directText);
    expect(await view.page.getByRole('button', { name: /Respond|Cancel task/ }).count()).toBe(0);
    await view.page.getByRole('button', { name: 'Sign out' }).click();
    await view.page.waitForURL('**/feed/signin');
  });

  it("an operator signed in reads each of its agents' inboxes and opens a task, and is offered no action on it", async () => {
    const operator = await rest(hub, 'POST', 'api/operators', { token: ADMIN_TOKEN, body: { handle: 'olga' } });
    expect(operator.status).toBe(201);
    const owned = await register(hub, 'ollie', {}, operator.body.token);
    const words = `For ollie ${Date.now()}`;
    expect(
      (
        await rest(hub, 'PUT', `api/spaces/links/members/${owned.handle}`, {
          token: seeded.alice.token,
          body: { role: 'worker' },
        })
      ).status,
    ).toBeLessThan(300);
    expect(
      (
        await rest(hub, 'POST', `api/tasks/${seeded.claimableId}/claim`, {
          token: owned.token,
          body: { leaseSeconds: 120 },
        })
      ).status,
    ).toBe(200);
    await rpc(
      `${hub.url}agents/${owned.handle}/`,
      'SendMessage',
      {
        message: { messageId: `o-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: words }] },
        configuration: { returnImmediately: true },
      },
      { token: seeded.alice.token },
    );

    await view.page.goto(`${hub.url}feed/signin`);
    await view.page.getByLabel('Token').fill(operator.body.token);
    await view.page.getByRole('button', { name: 'Sign in' }).click();
    await view.page.waitForURL('**/feed/inbox');
    await view.page.getByRole('heading', { name: 'Inbox of ollie' }).waitFor();
    // What the owned agent holds: the intent it claimed, read with the operator's token.
    await view.page.locator('#claimed li', { hasText: 'held by ollie' }).waitFor();
    expect(await view.page.locator('#claimed a').getAttribute('href')).toBe(`/feed/tasks/${seeded.claimableId}`);
    await view.page.getByRole('link', { name: words }).click();
    await view.page.waitForSelector('#task-detail[data-state="TASK_STATE_SUBMITTED"]');
    // An operator reads its agents' tasks but acts as none of them: no action is offered, and the page says why.
    expect(await text()).toContain('You read this task as operator olga');
    expect(await view.page.getByRole('button', { name: /Respond|Cancel task/ }).count()).toBe(0);
    expect(await view.page.locator('#task-detail .state').innerText()).toBe('new');
    await view.page.getByRole('button', { name: 'Sign out' }).click();
    await view.page.waitForURL('**/feed/signin');
    expect(await inPage('sessionStorage.length')).toBe(0);
    await nothingRan();
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

  it('a task waiting on its sender reads "needs your answer" to the sender and names the command that answers it', async () => {
    const words = `Which branch? ${Date.now()}`;
    const sent = await rpc(
      `${hub.url}agents/bob/`,
      'SendMessage',
      {
        message: { messageId: `q-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: words }] },
        configuration: { returnImmediately: true },
      },
      { token: seeded.alice.token },
    );
    const taskId = sent.body.result.task.id as string;
    const asked = await rest(hub, 'POST', `api/tasks/${taskId}/respond`, {
      token: seeded.bob.token,
      body: { state: 'input-required', message: { parts: [{ text: 'main or next?' }] } },
    });
    expect(asked.status).toBe(200);
    await view.page.goto(`${hub.url}feed/signin?next=/feed/inbox/tasks/${taskId}`);
    await view.page.getByLabel('Token').fill(seeded.alice.token);
    await view.page.getByRole('button', { name: 'Sign in' }).click();
    await view.page.waitForURL(`**/feed/inbox/tasks/${taskId}`);
    await view.page.waitForSelector('#task-detail[data-state="TASK_STATE_INPUT_REQUIRED"]');
    expect(await view.page.locator('#task-detail .state').innerText()).toBe('needs your answer');
    expect(await text()).toMatch(/bob wrote:\s+main or next\?/);
    expect(await text()).toContain(`muster send bob --task ${taskId}`);
    expect(await view.page.getByRole('button', { name: 'Respond' }).count()).toBe(0);
    await view.page.getByRole('button', { name: 'Sign out' }).click();
    await view.page.waitForURL('**/feed/signin');
  });

  it('is used by keyboard alone: the skip link comes first, Enter signs in, and the sender cancels a task from the page', async () => {
    const words = `Cancel me ${Date.now()}`;
    const sent = await rpc(
      `${hub.url}agents/bob/`,
      'SendMessage',
      {
        message: { messageId: `k-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: words }] },
        configuration: { returnImmediately: true },
      },
      { token: seeded.alice.token },
    );
    const taskId = sent.body.result.task.id as string;

    await view.page.goto(`${hub.url}feed/signin`);
    await view.page.keyboard.press('Tab');
    expect(await inPage('document.activeElement.textContent')).toBe('Skip to content');
    await view.page.getByLabel('Token').focus();
    await view.page.keyboard.type(seeded.alice.token);
    await view.page.keyboard.press('Enter');
    await view.page.waitForURL('**/feed/inbox');

    await view.page.getByRole('link', { name: words }).focus();
    await view.page.keyboard.press('Enter');
    await view.page.waitForURL(`**/feed/inbox/tasks/${taskId}`);
    await view.page.waitForSelector(`#task-detail[data-task="${taskId}"]`);
    // alice sent it: she may cancel it, and not respond (only its receiver may).
    expect(await view.page.getByRole('button', { name: 'Respond' }).count()).toBe(0);
    await view.page.getByRole('button', { name: 'Cancel task' }).focus();
    await view.page.keyboard.press('Enter');
    await view.page.waitForSelector('#task-detail[data-state="TASK_STATE_CANCELED"]');
    expect(await view.page.locator('#task-detail .state').innerText()).toBe('canceled');
    expect(await view.page.getByRole('button', { name: 'Cancel task' }).count()).toBe(0);
    const asAlice = await sdkClient(`${hub.url}agents/bob/`, seeded.alice.token);
    expect(wire(await asAlice.getTask({ tenant: '', id: taskId } as never)).status.state).toBe('TASK_STATE_CANCELED');

    await view.page.getByRole('button', { name: 'Sign out' }).click();
    await view.page.waitForURL('**/feed/signin');
    await nothingRan();
  });
});
