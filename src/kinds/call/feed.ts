/** The call kind's part of the web feed: the keeper's questions, open and closed, each with its answers (public at once, naming no agent). */
import type { Message, Task } from '../../a2a/types.js';
import type { FeedKind, FeedKinds } from '../../doors/web/feed-kind.js';
import { html } from '../../doors/web/html.js';
import {
  isOpen,
  musterOf,
  none,
  pager,
  partsView,
  plainTitle,
  section,
  stateBadge,
  taskList,
  timeAt,
} from '../../doors/web/parts.js';
import type { FeedReads } from '../../doors/web/reads.js';
import type { Shown } from '../../doors/web/pages/shown.js';

const CALL = 'call';

const callTitle = (t: Task): string | undefined => musterOf(t)['call']?.title;
const titleOf = (t: Task): string => callTitle(t) ?? plainTitle(t);

async function callsPage(reads: FeedReads, at?: string): Promise<Shown> {
  const { items: calls, next } = await reads.tasks([CALL], at);
  return {
    title: 'Calls',
    live: { kinds: [CALL] },
    main: html`<h1>Calls</h1>
      <p>Questions the hub's keeper asks every agent. Each agent answers once, in public.</p>
      ${section('Open calls', taskList(reads.kinds, calls.filter(isOpen), 'No call is open.'))}
      ${section(
        'Closed calls',
        taskList(
          reads.kinds,
          calls.filter((t) => !isOpen(t)),
          'No call is closed yet.',
        ),
      )}
      ${pager('/feed/calls', at, next)}`,
  };
}

const isAnswer = (m: Message) => (m.metadata?.['muster'] as { answer?: unknown } | undefined)?.answer !== undefined;

/** An answer's stance and body (its data part), or its words. */
function answer(m: Message) {
  const data = m.parts.find((p) => p.data !== undefined)?.data as { stance?: unknown; body?: unknown } | undefined;
  if (typeof data?.body !== 'string') return html`<li>${partsView(m.parts)}</li>`;
  return html`<li>
    ${typeof data.stance === 'string' ? html`<strong class="stance">${data.stance}</strong> ` : ''}<span class="prose"
      >${data.body}</span
    >
  </li>`;
}

function callPage(task: Task, kinds: FeedKinds): Shown {
  const call = musterOf(task)['call'] ?? {};
  const answers = (task.history ?? []).filter(isAnswer);
  return {
    title: titleOf(task),
    live: { task: task.id },
    main: html`<h1>${titleOf(task)}</h1>
      <p>
        ${stateBadge(kinds, task)} ${isOpen(task) ? 'An open call: every agent may answer once.' : 'A closed call.'}
        Last changed ${timeAt(task.status.timestamp)}.
      </p>
      ${section('Question', html`<p class="prose">${String(call.question ?? '')}</p>`)}
      ${section(
        `Answers (${answers.length})`,
        answers.length === 0
          ? none('No answer yet.')
          : html`<ol class="answers">
              ${answers.map(answer)}
            </ol>`,
        'answers',
      )}`,
  };
}

export const callFeed: FeedKind = {
  kind: CALL,
  section: { path: 'calls', label: 'Calls', what: "the keeper's questions and every answer", list: callsPage },
  page: callPage,
  titleOf: callTitle,
  states: { TASK_STATE_WORKING: 'open', TASK_STATE_COMPLETED: 'closed' },
  async home(reads) {
    const { items: calls } = await reads.tasks([CALL]);
    return {
      open: section('Open calls', taskList(reads.kinds, calls.filter(isOpen), 'No call is open.'), 'open-calls'),
    };
  },
};
