/** One public task on its own page (a task of any public kind), and the pick of page by kind. */
import { isJsonObject, type Artifact, type JsonObject, type Message, type Task } from '../../../a2a/types.js';
import type { FeedKinds } from '../feed-kind.js';
import { html, type Html } from '../html.js';
import {
  agentLink,
  dataView,
  kindOf,
  musterOf,
  none,
  partsView,
  section,
  stateBadge,
  timeAt,
  titleOf,
} from '../parts.js';
import type { FeedReads } from '../reads.js';
import type { Shown } from './shown.js';

/** What a kind's own page adds to the task page: where the task lives, and what its artifacts are called. */
export interface TaskViewWords {
  /** After the sender: " in space links". */
  place?: Html;
  /** The artifacts' heading, and what is said when there is none. */
  artifacts?: { heading: string; none: string };
}

/** A Landing's data part: the commit and the files the change wrote. */
interface LandingData {
  commit?: string;
  files?: { path?: string }[];
  worker?: string;
}

/** What a Landing's own lines show; any other field is shown as a field. */
const LANDING_FIELDS = new Set(['commit', 'files', 'worker']);

/** An artifact: its words, a Landing's commit and files, and any other data as fields. */
function artifactView(a: Artifact, heading: string): Html {
  const data = a.parts.find((p) => isJsonObject(p.data))?.data as (LandingData & JsonObject) | undefined;
  const rest = Object.fromEntries(Object.entries(data ?? {}).filter(([k]) => !LANDING_FIELDS.has(k)));
  const files = data?.files ?? [];
  const name = a.name ?? a.artifactId;
  return html`<article class="artifact">
    ${name === heading ? '' : html`<h3>${name}</h3>`} ${partsView(a.parts.filter((p) => p.data === undefined))}
    ${Object.keys(rest).length > 0 ? dataView(rest) : ''}
    ${data?.commit ? html`<p>Commit <code>${data.commit}</code></p>` : ''}
    ${
      files.length > 0
        ? html`<p class="meta">Files</p>
            <ul class="files">
              ${files.map((f) => html`<li><code>${String(f.path ?? '')}</code></li>`)}
            </ul>`
        : ''
    }
  </article>`;
}

/** Who wrote a message: its sender's words are the task's sender's; an agent's, its worker's or receiver's. */
const speaker = (m: Record<string, any>, msg: Message): Html =>
  agentLink(msg.role === 'ROLE_AGENT' ? (m['worker'] ?? m['to']) : m['from']);

/** "An intent", "A call". */
const anA = (word: string): string => `${/^[aeiou]/i.test(word) ? 'An' : 'A'} ${word}`;

/** The parts of a task anyone reads: who, where, its messages and what it produced. */
export function taskView(kinds: FeedKinds, task: Task, words: TaskViewWords = {}): Shown {
  const m = musterOf(task);
  const title = titleOf(kinds, task);
  const artifacts = words.artifacts ?? { heading: 'Artifacts', none: 'None.' };
  return {
    title,
    live: { task: task.id },
    main: html`<h1>${title}</h1>
      <p>
        ${stateBadge(kinds, task)}
        ${anA(kindOf(task))}${m['from'] ? html` from ${agentLink(m['from'])}` : ''}${words.place ?? ''}${m['worker'] ? html`, worked by ${agentLink(m['worker'])}` : ''};
        last changed ${timeAt(task.status.timestamp)}.
      </p>
      ${typeof m['why'] === 'string' ? section('Why', html`<p class="prose">${m['why']}</p>`) : ''}
      ${
        Array.isArray(m['footprint']) && m['footprint'].length > 0
          ? section(
              'Footprint',
              html`<ul>
                ${(m['footprint'] as unknown[]).map((f) => html`<li><code>${String(f)}</code></li>`)}
              </ul>`,
            )
          : ''
      }
      ${task.status.message ? section('Status', partsView(task.status.message.parts)) : ''}
      ${section(
        'Messages',
        (task.history ?? []).length === 0
          ? none('No messages.')
          : html`<ol class="messages">
              ${(task.history ?? []).map(
                (msg) =>
                  html`<li>
                    <p class="who">${speaker(m, msg)} wrote:</p>
                    ${partsView(msg.parts)}
                  </li>`,
              )}
            </ol>`,
      )}
      ${section(artifacts.heading, (task.artifacts ?? []).length === 0 ? none(artifacts.none) : html`${(task.artifacts ?? []).map((a) => artifactView(a, artifacts.heading))}`, 'artifacts')}`,
  };
}

/** Any public task by id, on the page its kind has. */
export async function anyTaskPage(reads: FeedReads, id: string): Promise<Shown> {
  const task = await reads.task(id);
  return reads.kinds.page(task, kindOf(task)) ?? taskView(reads.kinds, task);
}
