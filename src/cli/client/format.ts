/** Readable renderings of hub answers, for people. Pure: each returns the text to print. */
import type { Artifact, MailboxEntry, MailboxPage, Me, Message, MusterMetadata, Part, Registration, Task } from './wire.js';

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`; other spellings pass through. */
export const stateLabel = (state: string): string => state.replace(/^TASK_STATE_/, '').toLowerCase().replace(/_/g, '-');

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

const musterOf = (task: Task): MusterMetadata => (task.metadata?.['muster'] as MusterMetadata | undefined) ?? {};

const fields = (rows: [string, string | undefined][]): string[] => {
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

function renderArtifact(a: Artifact): string {
  const title = a.name ? `${a.name} (${a.artifactId})` : a.artifactId;
  const lines = [`  ${title}:`];
  if (a.description) lines.push(`    ${a.description}`);
  lines.push(indent(a.parts.map(partText).join('\n'), '    '));
  return lines.join('\n');
}

/** What get prints: the summary, the status message, the history and the artifacts. */
export function renderTask(task: Task): string {
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
  if (task.status.message) out.push(`\nStatus message:\n${indent(task.status.message.parts.map(partText).join('\n'), '  ')}`);
  const history = task.history ?? [];
  if (history.length > 0) {
    const whoOf = (msg: Message) => {
      const role = roleLabel(msg.role);
      const handle = msg.role === 'ROLE_USER' ? m.from : msg.role === 'ROLE_AGENT' ? m.to : undefined;
      return handle ? `${role} ${handle}` : role;
    };
    const width = Math.max(...history.map((msg) => whoOf(msg).length));
    const lines = history.map((msg) => parts(msg.parts, `  ${`${whoOf(msg)}:`.padEnd(width + 1)} `, ' '.repeat(width + 4)));
    out.push(`\nHistory (${history.length}):\n${lines.join('\n')}`);
  }
  const artifacts = task.artifacts ?? [];
  if (artifacts.length > 0) out.push(`\nArtifacts (${artifacts.length}):\n${artifacts.map(renderArtifact).join('\n')}`);
  return out.join('\n');
}

const counterparty = (e: MailboxEntry): string => (e.counterparty.name ? `${e.counterparty.handle} (${e.counterparty.name})` : e.counterparty.handle);

/** What inbox and sent print: a table, one task a line, and how to get the next page. */
export function renderMailbox(page: MailboxPage, box: 'inbox' | 'sent', state: string, next: string | undefined): string {
  if (page.data.length === 0) return `No ${state === 'all' ? '' : `${stateLabel(state)} `}tasks ${box === 'inbox' ? 'in your inbox' : 'you sent'}.`;
  const rows = [
    ['ID', 'STATE', box === 'inbox' ? 'FROM' : 'TO', 'UPDATED', 'LAST MESSAGE'],
    ...page.data.map((e) => [e.id, stateLabel(e.state), counterparty(e), e.updatedAt, truncate(firstText(e.lastMessage), 60)]),
  ];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const lines = rows.map((r) =>
    r
      .map((cell, i) => (i < widths.length ? cell.padEnd(widths[i] ?? 0) : cell))
      .join('  ')
      .trimEnd(),
  );
  if (page.hasMore && next) lines.push('', `More: ${next}`);
  return lines.join('\n');
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
  if (me.kind === 'admin') return 'admin (the hub operator token)';
  if (me.kind === 'anonymous') return 'anonymous (no token sent: pass --token or set MUSTER_TOKEN)';
  return [
    `${me.handle}${me.name ? ` (${me.name})` : ''}`,
    ...fields([
      ['A2A base', me.a2a],
      ['endpoint', me.endpoint],
      ['about', me.description],
      ['since', me.createdAt],
    ]).map((l) => `  ${l}`),
  ].join('\n');
}
