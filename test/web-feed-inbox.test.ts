/**
 * The web feed signed in, in real headless Chromium: a person answering a task at its own URL and
 * seeing it completed over A2A, a third agent and an operator shown only what they may read, a
 * task waiting on its sender, and the feed used by keyboard alone (signing in, cancelling a sent
 * task). The token stays in sessionStorage and headers: never in a URL or a cookie.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ADMIN_TOKEN, register, rest, rpc, type TestHub } from './helpers/hub.js';
import { sdkClient, wire } from './helpers/sdk.js';
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

const { text, inPage, nothingRan } = reading(() => view);

describe('the web feed in Chromium', () => {
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
