/** Readable renderings of hub answers, for people. Pure: each returns the text to print. */
import type {
  Artifact,
  MailboxEntry,
  Me,
  Message,
  MusterMetadata,
  Page,
  Part,
  Profile,
  Registration,
  Task,
  TokenInfo,
} from './wire.js';

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`; other spellings pass through. */
export const stateLabel = (state: string): string =>
  state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');

const roleLabel = (role: string): string => role.replace(/^ROLE_/, '').toLowerCase();

/** One part as text: text as is, data as compact JSON, files by name/URL. */
export function partText(part: Part): string {
  if (typeof part.text === 'string') return part.text;
  if (part.data !== undefined) return JSON.stringify(part.data);
  const file = [part.filename, part.mediaType].filter(Boolean).join(', ');
  if (typeof part.url === 'string') return `<${part.url}>${file ? ` (${file})` : ''}`;
  if (typeof part.raw === 'string') return `[${Math.floor((part.raw.length * 3) / 4)} bytes${file ? `, ${file}` : ''}]`;
  return JSON.stringify(part);
}

/** The data of the first data part, if there is one. */
export const dataOf = (list: Part[] | undefined): unknown => list?.find((p) => p.data !== undefined)?.data;

/** Parts as text, one after another. */
export const partsText = (list: readonly Part[]): string => list.map(partText).join('\n');

/** The first text part of a message, else its first part rendered; '' when it has none. */
export const firstText = (message: Message | undefined): string => {
  const parts = message?.parts ?? [];
  const text = parts.find((p) => typeof p.text === 'string');
  const first = text ?? parts[0];
  return first ? partText(first) : '';
};

/** One line, at most `max` characters. */
export function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

const indent = (text: string, prefix: string): string =>
  text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');

/** Parts one after another, the first after `lead` and the rest (and wrapped lines) under it. */
function parts(list: Part[], lead: string, prefix: string): string {
  const body = list.map(partText).join('\n');
  const [first = '', ...rest] = body.split('\n');
  return [lead + first, ...rest.map((line) => prefix + line)].join('\n');
}

const musterOf = (task: Pick<Task, 'metadata'>): MusterMetadata =>
  (task.metadata?.['muster'] as MusterMetadata | undefined) ?? {};

/** Who said a message of `task`: its role, and the handle when the task names it ("agent bob", "user alice"). */
export function speaker(task: Pick<Task, 'metadata'>, message: Message): string {
  const m = musterOf(task);
  const handle = message.role === 'ROLE_USER' ? m.from : message.role === 'ROLE_AGENT' ? m.to : undefined;
  return handle ? `${roleLabel(message.role)} ${handle}` : roleLabel(message.role);
}

export const fields = (rows: [string, string | undefined][]): string[] => {
  const shown = rows.filter((r): r is [string, string] => r[1] !== undefined && r[1] !== '');
  const width = Math.max(...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
};

/** What send, respond and cancel print: which task, its state, between whom. */
export function renderTaskSummary(task: Task): string {
  const m = musterOf(task);
  return fields([
    ['task', task.id],
    ['state', stateLabel(task.status.state)],
    ['from', m.from && m.to ? `${m.from} → ${m.to}` : m.from],
    ['context', task.contextId],
    ['reason', m.cancelReason],
  ]).join('\n');
}

/** How to go on with a task that is still open, or needs the sender, as send printed it. */
function nextStep(task: Task): string | undefined {
  const m = musterOf(task);
  const agent = m.to ?? 'the agent';
  const state = task.status.state;
  if (state === 'TASK_STATE_INPUT_REQUIRED')
    return `${agent} needs more from you: muster send ${m.to ?? '<handle>'} --task ${task.id} <text...>`;
  if (state !== 'TASK_STATE_SUBMITTED' && state !== 'TASK_STATE_WORKING') return undefined;
  const lead = m.wait?.ranOut
    ? `The wait ran out after ${m.wait.seconds} s; ${agent} may still answer.`
    : `${agent} has not answered yet.`;
  return `${lead} Follow the task: muster watch ${task.id}  (or muster get ${task.id})`;
}

/** What send prints: the task in brief, the agent's answer so far (its status message and artifacts), and what to do next. */
export function renderSent(task: Task): string {
  const out = [renderTaskSummary(task)];
  if (task.status.message) out.push(`\nAnswer:\n${indent(partsText(task.status.message.parts), '  ')}`);
  const artifacts = task.artifacts ?? [];
  if (artifacts.length > 0) out.push(`\nArtifacts (${artifacts.length}):\n${artifacts.map(renderArtifact).join('\n')}`);
  const next = nextStep(task);
  if (next) out.push(`\n${next}`);
  return out.join('\n');
}

function renderArtifact(a: Artifact): string {
  const title = a.name ? `${a.name} (${a.artifactId})` : a.artifactId;
  const lines = [`  ${title}:`];
  if (a.description) lines.push(`    ${a.description}`);
  lines.push(indent(a.parts.map(partText).join('\n'), '    '));
  return lines.join('\n');
}

/** A kind's own part of what get prints: its lines, shown in place of the history, and the artifacts they explain. */
export interface TaskSection {
  lines: string[];
  explains: ReadonlySet<string>;
}

/** A kind's section for a task of its own, or undefined for any other task. */
export type SectionOf = (task: Task) => TaskSection | undefined;

const sectionOf = (task: Task, sections: readonly SectionOf[]): TaskSection | undefined => {
  for (const section of sections) {
    const found = section(task);
    if (found) return found;
  }
  return undefined;
};

/**
 * What get prints: the summary, the status message, the history (or, for a kind that brings one
 * of `sections`, its own section) and the artifacts.
 */
export function renderTask(task: Task, sections: readonly SectionOf[]): string {
  const m = musterOf(task);
  const out = [
    fields([
      ['task', task.id],
      ['state', stateLabel(task.status.state)],
      ['from', m.from && m.to ? `${m.from} → ${m.to}` : m.from],
      ['context', task.contextId],
      ['updated', task.status.timestamp],
      ['reason', m.cancelReason],
    ]).join('\n'),
  ];
  if (task.status.message)
    out.push(
      `\nStatus message (${speaker(task, task.status.message)}):\n${indent(task.status.message.parts.map(partText).join('\n'), '  ')}`,
    );
  const section = sectionOf(task, sections);
  if (section) out.push(section.lines.join('\n'));
  const history = section ? [] : (task.history ?? []);
  if (history.length > 0) {
    const whoOf = (msg: Message) => speaker(task, msg);
    const width = Math.max(...history.map((msg) => whoOf(msg).length));
    const lines = history.map((msg) =>
      parts(msg.parts, `  ${`${whoOf(msg)}:`.padEnd(width + 1)} `, ' '.repeat(width + 4)),
    );
    out.push(`\nHistory (${history.length}):\n${lines.join('\n')}`);
  }
  const artifacts = (task.artifacts ?? []).filter((a) => !section?.explains.has(a.artifactId));
  if (artifacts.length > 0) out.push(`\nArtifacts (${artifacts.length}):\n${artifacts.map(renderArtifact).join('\n')}`);
  return out.join('\n');
}

const counterparty = (e: MailboxEntry): string =>
  e.counterparty.name ? `${e.counterparty.handle} (${e.counterparty.name})` : e.counterparty.handle;

/** What inbox and sent print: a table, one task a line, and how to get the next page. */
export function renderMailbox(
  page: Page<MailboxEntry>,
  box: 'inbox' | 'sent',
  state: string,
  next: string | undefined,
): string {
  if (page.items.length === 0)
    return `No ${state === 'all' ? '' : `${stateLabel(state)} `}tasks ${box === 'inbox' ? 'in your inbox' : 'you sent'}.`;
  const rows = [
    ['ID', 'STATE', box === 'inbox' ? 'FROM' : 'TO', 'UPDATED', 'LAST MESSAGE'],
    ...page.items.map((e) => [
      e.id,
      stateLabel(e.state),
      counterparty(e),
      e.updatedAt,
      truncate(firstText(e.lastMessage), 60),
    ]),
  ];
  return withNext(table(rows), next);
}

/** Rows as aligned columns; the last column is not padded. */
export function table(rows: string[][]): string[] {
  const columns = Math.max(...rows.map((r) => r.length)) - 1;
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i < widths.length ? cell.padEnd(widths[i] ?? 0) : cell))
      .join('  ')
      .trimEnd(),
  );
}

const withNext = (lines: string[], next: string | undefined): string =>
  [...lines, ...(next ? ['', `More: ${next}`] : [])].join('\n');

/** What agents list prints: one agent a line. */
export function renderAgents(page: Page<Profile>, next: string | undefined): string {
  if (page.items.length === 0) return 'No agents on this hub yet.';
  const rows = [
    ['HANDLE', 'NAME', 'SINCE', 'ABOUT'],
    ...page.items.map((a) => [a.handle, a.name ?? '', a.createdAt, truncate(a.description ?? '', 60)]),
  ];
  return withNext(table(rows), next);
}

/** What agents show prints: a profile. */
export const renderProfile = (p: Profile): string =>
  [
    `${p.handle}${p.name ? ` (${p.name})` : ''}`,
    ...fields([
      ['A2A base', p.a2a],
      ['endpoint', p.endpoint],
      ['about', p.description],
      ['tags', p.tags?.join(', ')],
      ['skills', p.skills?.map((s) => s.id).join(', ')],
      ['operator', p.operator],
      ['paused', p.paused && `since ${p.paused.at}, by the ${p.paused.by}`],
      ['since', p.createdAt],
    ]).map((l) => `  ${l}`),
  ].join('\n');

/** What token list prints: ids and dates, never a token. */
export function renderTokens(page: Page<TokenInfo>): string {
  return table([
    ['ID', 'CREATED', 'REVOKED'],
    ...page.items.map((t) => [t.id, t.createdAt, t.revokedAt ?? '(live)']),
  ]).join('\n');
}

/** What register prints: the handle, the A2A base, and the token with the note that it is shown once. */
export function renderRegistration(r: Registration): string {
  return [
    `Registered ${r.handle}${r.name ? ` (${r.name})` : ''}.`,
    ...fields([
      ['A2A base', r.a2a],
      ['token', r.token],
    ]).map((l) => `  ${l}`),
    '',
    'The token is shown this once and cannot be read again. Store it now, e.g.:',
    `  export MUSTER_TOKEN=${r.token}`,
  ].join('\n');
}

/** What whoami prints. */
export function renderMe(me: Me): string {
  if (me.kind === 'admin') return "admin (the hub's admin token)";
  if (me.kind === 'anonymous') return 'anonymous';
  if (me.kind === 'operator')
    return `operator ${me.handle} (owns: ${me.agents.length ? me.agents.join(', ') : 'no agents yet'})`;
  return renderProfile(me);
}
