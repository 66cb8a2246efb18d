/**
 * The directory: which agents this hub has, by text, skill and tag. At the hub's base a
 * SendMessage whose one data part is `{"skill": "directory.search", "args": {q?, skill?, tag?}}`
 * is answered with an agent Message, not a task: a lookup is a question with an answer, not work
 * to follow, so nothing is stored and no receipt is kept (a retried message is simply asked
 * again). GET /api/agents?q=&skill=&tag= runs the same search for people and scripts, paged.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Message, SendMessageParams } from '../a2a/types.js';
import { invalidParams } from '../errors/hub-error.js';
import type { Identity } from '../identity/agents.js';
import type { Authentication } from '../identity/authentication.js';
import type { Caller } from '../identity/caller.js';
import { searchFields } from '../identity/profile.js';
import { publicProfile } from '../identity/profile-view.js';
import type { Door } from './kind.js';
import type { CardSkill } from './kind-module.js';
import { skillArgs, skillOf } from '../wire/skill-call.js';

export const DIRECTORY_SEARCH = 'directory.search';
/** The most agents one directory answer lists; GET /api/agents pages beyond. */
export const DIRECTORY_MAX = 50;

export const DIRECTORY_SKILL: CardSkill = {
  id: DIRECTORY_SEARCH,
  name: 'Find agents',
  description:
    `Which agents this hub has. Send one data part {"skill": "${DIRECTORY_SEARCH}", "args": {"q"?, "skill"?, "tag"?}}: each word of q is found, ignoring case, as a word or a word's start, ` +
    `in handles, names, descriptions, tags and skills (their names, descriptions, tags and examples); skill (a declared skill id) and tag match exactly. ` +
    `Answered at once with a Message (no task): up to ${DIRECTORY_MAX} agents, ranked (every word in the handle or name first), ` +
    'each with its handle, name, description, skills and card URL.',
  tags: ['directory', 'discovery', 'hub'],
  examples: [JSON.stringify({ skill: DIRECTORY_SEARCH, args: { q: 'translate', tag: 'french' } })],
  inputModes: ['application/json'],
  outputModes: ['application/json', 'text/plain'],
};

const directoryArgs = z.object(searchFields).strict().optional();

/** The hub's directory skill: answers a search at the hub's base. */
export class Directory {
  constructor(
    private readonly identity: Identity,
    private readonly authentication: Authentication,
  ) {}

  /** Whether this send is a directory search: a new message at the hub's base naming the skill. */
  takes(door: Door, params: SendMessageParams): boolean {
    return door.kind === 'hub' && params.message.taskId === undefined && skillOf(params.message) === DIRECTORY_SEARCH;
  }

  /**
   * The answer to a directory search: a text line and the agents as data; `hubUrl` makes the card
   * URLs. The caller's token is checked here: SendMessage leaves that to the write it makes, and
   * this one makes none.
   */
  async answer(caller: Caller, params: SendMessageParams, hubUrl: string): Promise<Message> {
    await this.authentication.confirm(caller);
    const { message } = params;
    if (params.configuration?.taskPushNotificationConfig) {
      throw invalidParams(
        'configuration.taskPushNotificationConfig',
        'cannot be set here: a directory search answers with a message and opens no task',
        'Leave it out',
      );
    }
    const filters = skillArgs(message, directoryArgs, 'A directory search') ?? {};
    const { agents, hasMore } = await this.identity.search(filters, { limit: DIRECTORY_MAX });
    const listed = agents.map((a) => publicProfile(a, hubUrl, { endpoint: false }));
    const more = hasMore ? ` (the first ${DIRECTORY_MAX}; page through the rest with GET ${hubUrl}api/agents)` : '';
    return {
      messageId: randomUUID(),
      ...(message.contextId !== undefined ? { contextId: message.contextId } : {}),
      role: 'ROLE_AGENT',
      parts: [
        {
          text:
            agents.length === 0
              ? 'No agent on this hub matches.'
              : `${agents.length} agent${agents.length === 1 ? '' : 's'} on this hub match${agents.length === 1 ? 'es' : ''}${more}.`,
        },
        { data: { agents: listed, hasMore }, mediaType: 'application/json' },
      ],
    };
  }
}
