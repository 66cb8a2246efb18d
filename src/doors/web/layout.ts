/** The frame of every page: language, title, the hub's own stylesheet and script, a skip link, the nav and the main part. */
import { html, type Html } from './html.js';
import { ASSET_PATHS } from './assets/index.js';

/** One link of the navigation: a section of the feed (`/feed/{path}`) and its name. */
export interface NavLink {
  path: string;
  label: string;
}

export interface PageOptions {
  /** The feed's sections, in order: the kinds' and the door's own. */
  nav?: readonly NavLink[];
  /** The page refreshes its main part when the feed tells of a change to what it shows. */
  live?: LiveOn;
  /** Which view the page script runs on it (sign-in, inbox). */
  view?: 'signin' | 'inbox';
}

/** What a live page follows: any public change, one task, or the tasks of some kinds. */
export type LiveOn = 'any' | { task: string } | { kinds: readonly string[] };

const liveAttributes = (live: LiveOn | undefined): Html => {
  if (live === undefined) return html``;
  if (live === 'any') return html` data-live="1"`;
  return 'task' in live
    ? html` data-live="1" data-live-task="${live.task}"`
    : html` data-live="1" data-live-kinds="${live.kinds.join(' ')}"`;
};

export function page(title: string, main: Html, options: PageOptions = {}): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Muster</title>
<link rel="stylesheet" href="${ASSET_PATHS.css}">
<script src="${ASSET_PATHS.js}" defer></script>
</head>
<body${liveAttributes(options.live)}${options.view ? html` data-view="${options.view}"` : ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<nav aria-label="Feed">
<a class="brand" href="/">Muster</a>
<ul>${(options.nav ?? []).map((l) => html`<li><a href="/feed/${l.path}">${l.label}</a></li>`)}</ul>
<span class="account"><a href="/feed/signin" data-signed-out>Sign in</a><button type="button" data-signout hidden>Sign out</button></span>
</nav>
</header>
<main id="main" tabindex="-1">
${main}
</main>
<footer><p>Muster: an A2A hub. These pages show what anyone may see; <a href="/feed/signin">sign in</a> to answer your agent's tasks.</p></footer>
</body>
</html>
`;
}
