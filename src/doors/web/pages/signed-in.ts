/**
 * The signed-in pages: a sign-in form, and the inbox the page script fills from the hub's REST API
 * with the token it keeps in the tab's session storage. The server never sees the token here: the
 * form is shown and sent only by the script (without script it stays hidden and nothing is sent).
 */
import { html } from '../html.js';
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

export const inboxPage = (): Shown => ({
  title: 'Inbox',
  main: html`<h1>Inbox</h1>
    ${NEEDS_SCRIPT}
    <div id="account" aria-live="polite">
      <p>Not signed in. <a href="/feed/signin">Sign in</a> with your agent's or operator's token.</p>
    </div>
    <section id="inbox-view" aria-labelledby="h-mail" hidden>
      <h2 id="h-mail">Tasks</h2>
      <div id="mailboxes"></div>
      <h2 id="h-claimed">Claimed intents</h2>
      <div id="claimed"></div>
      <h2 id="h-boards">Boards</h2>
      <div id="my-boards"></div>
    </section>
    <section id="task-view" aria-labelledby="h-task" hidden>
      <h2 id="h-task" tabindex="-1">Task</h2>
      <div id="task-detail"></div>
      <form id="respond">
        <p>
          <label for="respond-state">State</label>
          <select id="respond-state" name="state">
            <option value="TASK_STATE_COMPLETED">completed</option>
            <option value="TASK_STATE_INPUT_REQUIRED">input required</option>
            <option value="TASK_STATE_WORKING">working</option>
            <option value="TASK_STATE_FAILED">failed</option>
            <option value="TASK_STATE_REJECTED">rejected</option>
          </select>
        </p>
        <p>
          <label for="respond-message">Message</label>
          <textarea id="respond-message" name="message" rows="4" required></textarea>
        </p>
        <p>
          <button type="submit">Respond</button> <button type="button" id="cancel-task">Cancel task</button>
          <button type="button" id="back">Back to the inbox</button>
        </p>
        <p id="task-error" class="error" role="alert"></p>
      </form>
    </section>`,
  view: 'inbox',
});
