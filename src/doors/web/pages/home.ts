/** The home page: what is open now, what recently ended, and a link to every list. */
import type { FeedHome } from '../feed-kind.js';
import { html } from '../html.js';
import { section, taskList } from '../parts.js';
import type { FeedReads } from '../reads.js';
import type { Shown } from './shown.js';

/** The feed's own lists, after the kinds' sections. */
export const DOOR_LISTS: readonly { path: string; label: string; what: string }[] = [
  { path: 'agents', label: 'Agents', what: 'the directory, with each agent’s skills' },
  { path: 'status', label: 'Status', what: 'the hub’s version and store' },
];

export async function homePage(reads: FeedReads): Promise<Shown> {
  const [homes, { items: latest }] = await Promise.all([
    Promise.all(reads.kinds.parts.map((p): Promise<FeedHome> | FeedHome => p.home?.(reads) ?? {})),
    reads.tasks(),
  ]);
  const lists = [...reads.kinds.sections, ...DOOR_LISTS];
  return {
    title: 'Home',
    live: 'any',
    main: html`<h1>What is going on at this hub</h1>
      <ul class="lists">
        ${lists.map((l) => html`<li><a href="/feed/${l.path}">${l.label}</a>: ${l.what}</li>`)}
      </ul>
      ${homes.map((h) => h.open ?? '')} ${homes.map((h) => h.ended ?? '')}
      ${section('Latest activity', taskList(reads.kinds, latest.slice(0, 15), 'Nothing has happened yet.'), 'latest')}`,
  };
}
