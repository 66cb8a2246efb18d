/**
 * The intent kind's part of the web feed: spaces, each with its members and its intents by state
 * (each with its landing), and an intent's page naming its space and its landing.
 */
import type { Task, TaskState } from '../../a2a/types.js';
import type { FeedKind } from '../../doors/web/feed-kind.js';
import { feedPath, html, type Html } from '../../doors/web/html.js';
import { agentLink, musterOf, none, pager, section, taskList, timeAt } from '../../doors/web/parts.js';
import { taskView } from '../../doors/web/pages/tasks.js';
import { SPACE_INTENTS, type FeedReads } from '../../doors/web/reads.js';
import type { Shown } from '../../doors/web/pages/shown.js';
import { INTENT } from './facts.js';
import { isoTime } from '../../wire/iso-time.js';

const spaceLink = (name: string): Html => html`<a href="${feedPath('spaces', name)}">${name}</a>`;

async function spacesPage(reads: FeedReads, at?: string): Promise<Shown> {
  const { items: data, next } = await reads.spaces(at);
  return {
    title: 'Spaces',
    live: { kinds: [INTENT] },
    main: html`<h1>Spaces</h1>
      <p>Where orchestrators declare work and workers claim, progress and land it.</p>
      ${
        data.length === 0
          ? none('No space yet.')
          : html`<ul class="spaces">
              ${data.map((s) => html`<li>${spaceLink(s.name)}${s.description ? html` <span class="meta">${s.description}</span>` : ''}${s.owner ? html` <span class="meta">owned by ${agentLink(s.owner)}</span>` : ''}</li>`)}
            </ul>`
      }
      ${pager('/feed/spaces', at, next)}`,
  };
}

/** An intent's states in people's words, in the order a space shows them: what waits for a worker first. */
const INTENT_STATES: readonly [TaskState, string][] = [
  ['TASK_STATE_SUBMITTED', 'open'],
  ['TASK_STATE_WORKING', 'in progress'],
  ['TASK_STATE_INPUT_REQUIRED', 'needs input'],
  ['TASK_STATE_COMPLETED', 'landed'],
  ['TASK_STATE_FAILED', 'failed'],
  ['TASK_STATE_CANCELED', 'withdrawn'],
];

const heading = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** A landed intent's landing summary, under its line. */
function landing(t: Task): Html {
  const m = musterOf(t);
  const summary = t.artifacts?.find((a) => a.name === 'Landing')?.parts.find((p) => p.text !== undefined)?.text;
  return html`${m['worker'] ? html` <span class="meta">by ${agentLink(m['worker'])}</span>` : ''}${summary ? html`<p class="landing">Landed: ${summary}</p>` : ''}`;
}

async function spacePage(reads: FeedReads, name: string): Promise<Shown> {
  const [space, intents] = await Promise.all([reads.space(name), reads.spaceTasks(name)]);
  const known = new Set(INTENT_STATES.map(([s]) => s));
  const groups: [string, Task[]][] = INTENT_STATES.map(([state, word]) => [
    heading(word),
    intents.filter((t) => t.status.state === state),
  ]);
  const other = intents.filter((t) => !known.has(t.status.state));
  if (other.length > 0) groups.push(['Other', other]);
  return {
    title: `Space ${space.name}`,
    live: { kinds: [INTENT] },
    main: html`<h1>Space ${space.name}</h1>
      ${space.description ? html`<p class="prose">${space.description}</p>` : ''}
      <p class="meta">
        ${space.owner ? html`Owned by ${agentLink(space.owner)}; ` : ''}claims: ${space.claim}; created
        ${timeAt(isoTime(space.createdAt))}. A2A base: <code>/spaces/${space.name}/</code>
      </p>
      ${section(
        'Members',
        space.members.length === 0
          ? none('No members.')
          : html`<ul>
              ${space.members.map((m) => html`<li>${agentLink(m.handle)} <span class="meta">${m.role}</span></li>`)}
            </ul>`,
      )}
      ${intents.length >= SPACE_INTENTS ? html`<p class="meta">The ${SPACE_INTENTS} intents changed most recently; <code>GET /api/spaces/${space.name}/intents</code> pages through them all.</p>` : ''}
      ${groups.map(([label, list]) => section(`${label} (${list.length})`, taskList(reads.kinds, list, 'None.', landing)))}`,
  };
}

export const intentFeed: FeedKind = {
  kind: INTENT,
  states: Object.fromEntries(INTENT_STATES),
  section: {
    path: 'spaces',
    label: 'Spaces',
    what: 'declared work, claimed and landed',
    list: spacesPage,
    item: spacePage,
  },
  page: (task, kinds) => {
    const space = (musterOf(task)['space'] as string | undefined) ?? task.contextId;
    return taskView(kinds, task, {
      place: html` in space ${spaceLink(space)}`,
      artifacts: { heading: 'Landing', none: 'Not landed yet.' },
    });
  },
};
