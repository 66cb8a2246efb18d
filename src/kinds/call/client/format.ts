/**
 * How `muster get` shows an open call: its question and answers, instead of their raw data parts.
 * Like the commands (cli.ts), this imports only from the client (src/client/) and the A2A types.
 */
import { isJsonObject } from '../../../a2a/types.js';
import { dataOf, type TaskSection } from '../../../client/format.js';
import type { Task } from '../../../client/wire.js';

function renderCall(task: Task, call: { title: string; question: string }): string[] {
  // The hub marks each answer (metadata.muster.answer), so a trimmed history (--history N) still shows them.
  const answers = (task.history ?? [])
    .filter(
      (m) =>
        isJsonObject(m.metadata?.['muster']) &&
        (m.metadata['muster'] as Record<string, unknown>)['answer'] !== undefined,
    )
    .map((m) => dataOf(m.parts))
    .filter((d): d is { body: string; stance?: string } => isJsonObject(d) && typeof d['body'] === 'string');
  return [
    '',
    `Call: ${call.title}`,
    `  question: ${call.question}`,
    '',
    `Answers (${answers.length}):`,
    ...(answers.length > 0 ? answers.map((a) => `  - ${a.stance ? `${a.stance}: ` : ''}${a.body}`) : ['  (none yet)']),
  ];
}

/** An open call's section, or undefined for any other task. */
export function callSection(task: Task): TaskSection | undefined {
  const muster = task.metadata?.['muster'];
  if (!isJsonObject(muster) || !isJsonObject(muster['call'])) return undefined;
  return { lines: renderCall(task, muster['call'] as { title: string; question: string }), explains: new Set() };
}
