/** Small pieces every page uses: links to what a page mentions, states, times, a task's words. */
import { isJsonObject, type Part, type Task } from '../../a2a/types.js';
import type { FeedKinds } from './feed-kind.js';
import { feedPath, html, type Html } from './html.js';
import { badge } from './states.js';

/** A task's `metadata.muster`, as the view rendered it. */
export const musterOf = (task: Task): Record<string, any> => (task.metadata?.['muster'] ?? {}) as Record<string, any>;

export const kindOf = (task: Task): string => String(musterOf(task)['kind'] ?? 'task');

/** A task's state as a badge, in its kind's words (an intent "landed", a call "closed"). */
export const stateBadge = (kinds: FeedKinds, task: Task): Html =>
  badge(task.status.state, kinds.stateWord(task, kindOf(task)));

export const agentLink = (handle: unknown): Html =>
  typeof handle === 'string' && handle !== ''
    ? html`<a class="agent" href="${feedPath('agents', handle)}">${handle}</a>`
    : html`someone`;

export const spaceLink = (name: string): Html => html`<a href="${feedPath('spaces', name)}">${name}</a>`;

/** A time, readable without script; the page script keeps a countdown's words current. */
export const timeAt = (iso: string | undefined): Html =>
  iso
    ? html`<time datetime="${iso}"
        >${iso
          .replace('T', ' ')
          .replace(/\.\d+Z$/, ' UTC')
          .replace(/Z$/, ' UTC')}</time
      >`
    : html``;

export function countdown(deadline: string, now = Date.now()): Html {
  const left = Date.parse(deadline) - now;
  return html`<time class="countdown" data-countdown datetime="${deadline}"
    >${left > 0 ? `${untilWords(left)} left` : 'deadline passed'}</time
  >`;
}

/** "3h 4m", "2m 5s", "12s". */
export function untilWords(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s % 60}s`;
  return `${s}s`;
}

/** A data field's name as people read it: `source_urls`, `sourceUrls` → "Source urls". */
const fieldName = (key: string): string => {
  const words = key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** Nesting shown as fields; deeper than this, a value is summed up. */
const DEEPEST = 4;

/** Data as people read it: an object as named fields, a list as a list, a value as its words; never JSON. */
export function dataView(data: unknown, depth = 0): Html {
  if (typeof data === 'string' && ISO_TIME.test(data)) return timeAt(data);
  if (data === null || typeof data !== 'object') return html`${String(data)}`;
  if (depth >= DEEPEST) return html`<span class="meta">(more)</span>`;
  if (Array.isArray(data))
    return html`<ul class="values">
      ${data.map((v) => html`<li>${dataView(v, depth + 1)}</li>`)}
    </ul>`;
  return html`<dl class="fields">
    ${Object.entries(data).map(
      ([k, v]) =>
        html`<dt>${fieldName(k)}</dt>
          <dd>${dataView(v, depth + 1)}</dd>`,
    )}
  </dl>`;
}

/** A message's or an artifact's parts: text as prose, data as fields, a file by its name. */
export const partsView = (parts: readonly Part[] | undefined): Html =>
  html`${(parts ?? []).map((p) => {
    if (p.text !== undefined) return html`<p class="prose">${p.text}</p>`;
    if (p.data !== undefined) return dataView(p.data);
    return html`<p class="meta">File ${p.filename ?? p.mediaType ?? ''}</p>`;
  })}`;

const lineValue = (v: unknown): string =>
  Array.isArray(v) ? v.map(lineValue).join(', ') : v !== null && typeof v === 'object' ? '…' : String(v);

/** Parts in a line: their text, else their data's fields ("Footprint: docs/**"), else a file's name. */
export function partsLine(parts: readonly Part[] | undefined): string {
  const list = parts ?? [];
  const text = list.filter((p) => p.text !== undefined).map((p) => p.text);
  if (text.length > 0) return text.join(' ');
  return list
    .map((p) =>
      isJsonObject(p.data)
        ? Object.entries(p.data)
            .map(([k, v]) => `${fieldName(k)}: ${lineValue(v)}`)
            .join('; ')
        : (p.filename ?? ''),
    )
    .join(' ');
}

/** What a public task is about, in a line, by its own words: its title, else its first message's words. */
export function plainTitle(task: Task): string {
  const title = musterOf(task)['title'];
  if (typeof title === 'string' && title !== '') return title;
  return partsLine(task.history?.[0]?.parts).slice(0, 200) || task.id;
}

/** What a public task is about, in a line: the title its kind gives it, else its own words. */
export const titleOf = (kinds: FeedKinds, task: Task): string => kinds.title(task, kindOf(task)) ?? plainTitle(task);

/** A titled part of a page; its heading names it for assistive technology. */
export function section(heading: string, body: Html, id?: string): Html {
  const headingId = `h-${heading.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return html`<section${id ? html` id="${id}"` : ''} aria-labelledby="${headingId}"><h2 id="${headingId}">${heading}</h2>${body}</section>`;
}

export const none = (what: string): Html => html`<p class="empty">${what}</p>`;

/** Whether a task is still open: it takes contributions or answers while WORKING (a review, a call). */
export const isOpen = (t: Task): boolean => t.status.state === 'TASK_STATE_WORKING';

/** A list of tasks, each linked by its title, with its kind, state and last change. */
export function taskList(
  kinds: FeedKinds,
  tasks: readonly Task[],
  empty: string,
  extra: (t: Task) => Html = () => html``,
): Html {
  if (tasks.length === 0) return none(empty);
  return html`<ul class="tasks">
    ${tasks.map(
      (t) =>
        html`<li>
          <a href="${kinds.href(t.id, kindOf(t))}">${titleOf(kinds, t)}</a> ${stateBadge(kinds, t)}
          <span class="meta">${kindOf(t)} · ${timeAt(t.status.timestamp)}</span>${extra(t)}
        </li>`,
    )}
  </ul>`;
}

/** Links to the first page and to the page after this one, when there is one (`page` is the list's own cursor). */
export function pager(path: string, at: string | undefined, next: string | undefined, query = ''): Html {
  if (!at && !next) return html``;
  // `query` (encoded, such as `q=german`) is kept on every page's link.
  const first = query ? `${path}?${query}` : path;
  return html`<nav class="pager" aria-label="Pages">
    ${at ? html`<a href="${first}">First page</a> ` : ''}${next ? html`<a href="${path}?${query ? `${query}&` : ''}page=${encodeURIComponent(next)}" rel="next">Next page</a>` : ''}
  </nav>`;
}
