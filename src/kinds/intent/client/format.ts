/**
 * How the intent commands print, for people, and the hub's intent refusals in the CLI's words.
 * Like the commands (cli.ts), this imports only from the client (src/client/): the client
 * CLI never loads the hub.
 */
import type { FieldWords } from '../../../client/cli-words.js';
import { fields, stateLabel, table, truncate } from '../../../client/format.js';
import type { Page, Task } from '../../../client/wire.js';

/** A space as REST answers it (POST, PATCH, GET /api/spaces…). */
export interface Space {
  name: string;
  description?: string;
  claim: 'open' | 'members';
  owner?: string;
  orchestratorPriority: number;
  createdAt: string;
  updatedAt: string;
  a2a: string;
}

export interface Member {
  handle: string;
  role: 'orchestrator' | 'worker';
  addedAt: string;
}

/** One row of GET /api/spaces/{name}/intents. */
export interface IntentRow {
  id: string;
  space: string;
  title: string;
  priority: number;
  state: string;
  footprint: string[];
  worker?: string;
  createdAt: string;
  updatedAt: string;
}

/** An intent's task.metadata.muster, as the hub keeps it. */
interface IntentFacts {
  space?: string;
  title?: string;
  priority?: number;
  worker?: string;
  leaseUntil?: string;
  duplicateOf?: string;
  cancelReason?: string;
}

export const factsOf = (task: Task): IntentFacts => (task.metadata?.['muster'] as IntentFacts | undefined) ?? {};

/** The status message's text: the hub's one plain sentence on what happened. */
const said = (task: Task): string | undefined =>
  task.status.message?.parts.find((p) => typeof p.text === 'string')?.text;

const withNext = (lines: string[], next: string | undefined): string =>
  [...lines, ...(next ? ['', `More: ${next}`] : [])].join('\n');

const claimRule = (s: Space): string =>
  s.claim === 'open' ? 'open (any registered agent claims)' : 'members (only its workers and owner claim)';

const spaceFields = (s: Space): string[] =>
  fields([
    ['space', s.name],
    ['about', s.description],
    ['owner', s.owner ?? '(the admin made it)'],
    ['claim', claimRule(s)],
    ['orchestrators', `declare at priority ${s.orchestratorPriority} at most`],
    ['A2A base', s.a2a],
    ['updated', s.updatedAt],
  ]);

export const renderSpace = (s: Space): string => spaceFields(s).join('\n');

export function renderSpaceWithMembers(s: Space & { members: Member[] }): string {
  const members =
    s.members.length > 0
      ? table([['MEMBER', 'ROLE', 'SINCE'], ...s.members.map((m) => [m.handle, m.role, m.addedAt])])
      : ['No members yet.'];
  return [...spaceFields(s), '', ...members].join('\n');
}

export function renderSpaces(page: Page<Space>, next: string | undefined): string {
  if (page.items.length === 0) return 'No spaces on this hub yet.';
  const rows = [
    ['NAME', 'CLAIM', 'OWNER', 'CAP', 'ABOUT'],
    ...page.items.map((s) => [
      s.name,
      s.claim,
      s.owner ?? '(admin)',
      String(s.orchestratorPriority),
      truncate(s.description ?? '', 60),
    ]),
  ];
  return withNext(table(rows), next);
}

/** What intents prints: one intent a line, claimable ones in the order a worker takes them. */
export function renderIntents(page: Page<IntentRow>, space: string, state: string, next: string | undefined): string {
  if (page.items.length === 0) return `No ${state === 'all' ? '' : `${stateLabel(state)} `}intents in space ${space}.`;
  const rows = [
    ['ID', 'PRI', 'STATE', 'WORKER', 'TITLE', 'FOOTPRINT'],
    ...page.items.map((i) => [
      i.id,
      String(i.priority),
      stateLabel(i.state),
      i.worker ?? '-',
      truncate(i.title, 50),
      truncate(i.footprint.join(' '), 40),
    ]),
  ];
  return withNext(table(rows), next);
}

/** What declare prints: what was declared (or which intent it repeats), then how to follow it. */
export function renderDeclared(task: Task, asked: number | undefined): string {
  const f = factsOf(task);
  const state = stateLabel(task.status.state);
  const followUp = `follow it with: muster get ${task.id}; withdraw it with: muster withdraw ${task.id} --space ${task.contextId}`;
  if (f.duplicateOf !== undefined)
    return `declared nothing: this repeats intent ${task.id} (${state}); pass --force to declare it anyway\n${followUp}`;
  const capped =
    asked !== undefined && f.priority !== undefined && f.priority < asked ? `, capped: you asked for ${asked}` : '';
  return `declared intent ${task.id} in space ${task.contextId} at priority ${f.priority ?? '?'}${capped} (${state})\n${state === 'submitted' ? followUp : (said(task) ?? followUp)}`;
}

export const renderClaimed = (task: Task): string =>
  `claimed intent ${task.id} until ${factsOf(task).leaseUntil ?? '?'}; heartbeat before then (muster heartbeat ${task.id})`;

export const renderHeartbeat = (task: Task): string =>
  `lease on intent ${task.id} kept until ${factsOf(task).leaseUntil ?? '?'}`;

export const renderProgress = (task: Task): string =>
  `progress noted on intent ${task.id} (${stateLabel(task.status.state)}); the lease runs until ${factsOf(task).leaseUntil ?? '?'}`;

export const renderAsked = (task: Task): string =>
  `asked the declarer about intent ${task.id} (${stateLabel(task.status.state)}); keep sending heartbeats until the answer comes (muster get ${task.id})`;

/** land, fail, release and withdraw: the intent's state, then the hub's sentence on what happened. */
export const renderOutcome =
  (verb: string) =>
  (task: Task): string =>
    `${verb} intent ${task.id} (${stateLabel(task.status.state)})${said(task) ? `\n${said(task)}` : ''}`;

/** Each command's wire fields and its flags (a field not listed is named as the hub named it). */
export type { FieldWords };

/** A declaration's fields (calls.ts: the title and why as text, the rest as data) and the flags that set them. */
export const DECLARATION_WORDS: FieldWords = {
  'message.parts[1].data.footprint': '--footprint',
  'message.parts[1].data.acceptance': '--acceptance',
  'message.parts[1].data.priority': '--priority',
  'message.parts[1].data.force': '--force',
  'message.parts': '<title>',
};
