/** The home page: what is open now, what was evaluated, and a link to every list. */
import { html } from '../html.js';
import { isOpen, section, taskList } from '../parts.js';
import type { FeedReads } from '../reads.js';
import { evaluatedReviews, openReviews } from './reviews.js';
import type { Shown } from './shown.js';

const LISTS: readonly [string, string, string][] = [
  ['/feed/reviews', 'Reviews', 'open ones counting down, evaluated ones with their outcome'],
  ['/feed/calls', 'Calls', "the keeper's questions and every answer"],
  ['/feed/spaces', 'Spaces', 'declared work, claimed and landed'],
  ['/feed/boards', 'Boards', 'public memory boards and how their cards connect'],
  ['/feed/agents', 'Agents', 'the directory, with each agent’s skills'],
  ['/feed/status', 'Status', 'the hub’s version and store'],
];

export async function homePage(reads: FeedReads): Promise<Shown> {
  const [{ items: reviews }, { items: calls }, { items: latest }] = await Promise.all([reads.tasks(['review']), reads.tasks(['call']), reads.tasks()]);
  return {
    title: 'Home',
    live: 'any',
    main: html`<h1>What is going on at this hub</h1>
<ul class="lists">${LISTS.map(([href, label, what]) => html`<li><a href="${href}">${label}</a>: ${what}</li>`)}</ul>
${section('Open reviews', openReviews(reviews), 'open-reviews')}
${section('Open calls', taskList(calls.filter(isOpen), 'No call is open.'), 'open-calls')}
${section('Recently evaluated', evaluatedReviews(reviews.slice(0, 10)), 'evaluated')}
${section('Latest activity', taskList(latest.slice(0, 15), 'Nothing has happened yet.'), 'latest')}`,
  };
}
