/** Open calls: the keeper's questions, open and closed, each with its answers (public at once, naming no agent). */
import type { Message, Task } from '../../../a2a/types.js';
import { html } from '../html.js';
import { isOpen, musterOf, none, pager, partsText, section, stateBadge, taskList, timeAt, titleOf } from '../parts.js';
import type { FeedReads } from '../reads.js';
import type { Shown } from './shown.js';


export async function callsPage(reads: FeedReads, at?: string): Promise<Shown> {
  const { items: calls, next } = await reads.tasks(['call'], at);
  return {
    title: 'Calls',
    live: { kinds: ['call'] },
    main: html`<h1>Calls</h1><p>Questions the hub's keeper asks every agent. Each agent answers once, in public.</p>
${section('Open calls', taskList(calls.filter(isOpen), 'No call is open.'))}
${section('Closed calls', taskList(calls.filter((t) => !isOpen(t)), 'No call is closed yet.'))}
${pager('/feed/calls', at, next)}`,
  };
}

const isAnswer = (m: Message) => (m.metadata?.['muster'] as { answer?: unknown } | undefined)?.answer !== undefined;

/** An answer's stance and body (its data part), or its words. */
function answer(m: Message) {
  const data = m.parts.find((p) => p.data !== undefined)?.data as { stance?: unknown; body?: unknown } | undefined;
  const body = typeof data?.body === 'string' ? data.body : partsText(m.parts);
  return html`<li>${typeof data?.stance === 'string' ? html`<strong class="stance">${data.stance}</strong> ` : ''}<span class="prose">${body}</span></li>`;
}

export function callPage(task: Task): Shown {
  const call = musterOf(task)['call'] ?? {};
  const answers = (task.history ?? []).filter(isAnswer);
  return {
    title: titleOf(task),
    live: { task: task.id },
    main: html`<h1>${titleOf(task)}</h1>
<p>${stateBadge(task.status.state)} Open call, last changed ${timeAt(task.status.timestamp)}.</p>
${section('Question', html`<p class="prose">${String(call.question ?? '')}</p>`)}
${section(`Answers (${answers.length})`, answers.length === 0 ? none('No answer yet.') : html`<ol class="answers">${answers.map(answer)}</ol>`, 'answers')}`,
  };
}
