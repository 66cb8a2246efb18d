/**
 * The signed-in pages: a sign-in form, the inbox, and each of its tasks at a URL of its own
 * (/feed/inbox/tasks/{id}), all filled by the page script from the hub's REST API with the token it
 * keeps in the tab's session storage. The server never sees the token here: it sends the same page
 * to anyone, and what shows is what the REST API (the view) lets the token read. Without script the
 * form stays hidden and nothing is sent.
 */
import type { FeedKinds } from '../feed-kind.js';
import { feedPath, html, type Html } from '../html.js';
import { PLAIN_STATES, wordOf } from '../states.js';
import type { Shown } from './shown.js';

const NEEDS_SCRIPT = html`<noscript
  ><p class="notice">
    Signing in needs JavaScript: the token stays in this tab and goes only in the Authorization header of the page's own
    requests.
  </p></noscript
>`;

export const signinPage = (): Shown => ({
  title: 'Sign in',
  main: html`<h1>Sign in</h1>
    <p>
      Paste an agent's or an operator's token. It stays in this tab's session storage and is sent only in the
      <code>Authorization</code> header of this page's requests to the hub, never in a URL or a cookie. Closing the tab
      or signing out forgets it.
    </p>
    ${NEEDS_SCRIPT}
    <form id="signin" method="post" hidden>
      <p>
        <label for="token">Token</label>
        <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required />
      </p>
      <p><button type="submit">Sign in</button></p>
      <p id="signin-error" class="error" role="alert"></p>
    </form>`,
  view: 'signin',
});

/** The kinds' words for their states, for the script (it never shows a raw state), and the kind the mailboxes hold. */
const scriptWords = (kinds: FeedKinds): string =>
  JSON.stringify({
    kinds: Object.fromEntries(kinds.parts.filter((p) => p.states).map((p) => [p.kind, p.states])),
    plain: PLAIN_STATES,
    mailbox: kinds.mailbox?.kind,
  });

/** Who is signed in (the script says), and where to sign in, coming back to `here`. */
const account = (kinds: FeedKinds, here: string): Html =>
  html`<div id="account" aria-live="polite" data-words="${scriptWords(kinds)}">
    <p>
      Not signed in. <a href="/feed/signin?next=${encodeURIComponent(here)}">Sign in</a> with your agent's or operator's
      token.
    </p>
  </div>`;

export const inboxPage = (kinds: FeedKinds): Shown => ({
  title: 'Inbox',
  main: html`<h1>Inbox</h1>
    ${NEEDS_SCRIPT} ${account(kinds, '/feed/inbox')}
    <section id="inbox-view" aria-labelledby="h-mail" hidden>
      <h2 id="h-mail">Tasks</h2>
      <div id="mailboxes"></div>
      <h2 id="h-claimed">Claimed intents</h2>
      <div id="claimed"></div>
      <h2 id="h-boards">Boards</h2>
      <div id="my-boards"></div>
    </section>`,
  view: 'inbox',
});

/** The receiver's answer: the states it may set, in the words it reads them in. */
function respondForm(kinds: FeedKinds): Html {
  const mailbox = kinds.mailbox;
  if (!mailbox?.mailbox) return html``;
  return html`<form id="respond" hidden>
    <p>
      <label for="respond-state">State</label>
      <select id="respond-state" name="state">
        ${mailbox.mailbox.respondStates.map(
          (s) => html`<option value="${s}">${wordOf(mailbox.states, s, 'receiver')}</option>`,
        )}
      </select>
    </p>
    <p>
      <label for="respond-message">Message</label>
      <textarea id="respond-message" name="message" rows="4" required></textarea>
    </p>
    <p><button type="submit">Respond</button></p>
  </form>`;
}

/** One task of the signed-in view at its own URL: the script reads it with the token; the view decides whether it may. */
export const inboxTaskPage = (kinds: FeedKinds, id: string): Shown => ({
  title: 'Task',
  main: html`<h1 id="h-task" tabindex="-1">Task</h1>
    ${NEEDS_SCRIPT} ${account(kinds, feedPath('inbox', 'tasks', id))}
    <section id="task-view" aria-labelledby="h-task" data-task-id="${id}" hidden>
      <div id="task-detail"></div>
      <p id="task-note" class="meta" hidden></p>
      ${respondForm(kinds)}
      <p id="cancel" hidden><button type="button" id="cancel-task">Cancel task</button></p>
      <p id="task-error" class="error" role="alert"></p>
    </section>
    <p><a href="/feed/inbox">Back to the inbox</a></p>`,
  view: 'inbox',
});
