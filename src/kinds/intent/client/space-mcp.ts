/**
 * The intent kind's MCP tools for spaces (see src/mcp/tool.ts): list spaces, read one with its
 * members, make and change a space, add, re-role and remove members, so an MCP-only orchestrator
 * sets up its own work. They send what `muster space …` sends (cli.ts), to the same REST routes;
 * the hub checks names, ranges and who may, and its refusals come back as tool errors.
 */
import { z } from 'zod';
import { UsageError } from '../../../client/errors.js';
import { path, request } from '../../../client/http.js';
import { pageOf } from '../../../client/paging.js';
import type { RestPage } from '../../../client/wire.js';
import { pageAnswer } from '../../../mcp/answers.js';
import { tool, type MusterTool, type ToolAnswer } from '../../../mcp/tool.js';
import type { Member, Space } from './format.js';
import { PRIORITY } from '../limits.js';

const spaceName = (what: string) =>
  z
    .string()
    .min(1, "must be the space's name")
    .describe(`${what}: 2 to 40 lowercase letters, digits and -, e.g. "links"`);
const handle = z
  .string()
  .min(1, "must be an agent's handle")
  .describe("the agent's handle, as muster_directory_search lists it");
const role = z
  .enum(['orchestrator', 'worker'], 'must be "orchestrator" or "worker"')
  .describe('orchestrator (declares intents and withdraws its own) or worker (claims them)');
const description = z.string().max(2000, 'must be at most 2000 characters').describe('what the space is for');
const claim = z
  .enum(['open', 'members'], 'must be "open" or "members"')
  .describe('who claims its intents: members (its workers and owner; the default) or open (any registered agent)');
const cap = z
  .number()
  .int('must be a whole number')
  .min(PRIORITY.min, `must be from ${PRIORITY.min} to ${PRIORITY.max}`)
  .max(PRIORITY.max, `must be from ${PRIORITY.min} to ${PRIORITY.max}`)
  .describe(
    `the highest priority its orchestrators declare at (${PRIORITY.min} to ${PRIORITY.max}; default ${PRIORITY.min})`,
  );

const aRole = (r: string) => `a${r === 'orchestrator' ? 'n' : ''} ${r}`;
const about = (s: Space) =>
  `claim: ${s.claim}, orchestrators up to priority ${s.orchestratorPriority}, owner ${s.owner ?? '(the admin)'}${s.description ? `; ${s.description}` : ''}`;

/** A space as a tool answers it: what happened, what to do next, and the space as data. */
const spaceAnswer = (space: Space, said: string, next: string, extra: Record<string, unknown> = {}): ToolAnswer => ({
  text: `${said} Next: ${next}.`,
  structured: { space, ...extra, next },
});

const spaces = tool({
  name: 'muster_spaces',
  title: 'List the spaces',
  description:
    'List the spaces on the hub, by name: where work intents are declared and claimed. Use it to find a space to work in, or to check a name is free before muster_space_create.',
  input: z.object({ cursor: z.string().min(1).optional().describe('the nextCursor of the previous answer') }),
  public: true,
  readOnly: true,
  async run({ cursor }, call) {
    const page = pageOf((await request(call.target, 'api/spaces', { query: { cursor } })) as RestPage<Space>);
    const line = (s: Space) => `${s.name} (${about(s)})`;
    const next = 'read one and its members with muster_space {name}, its intents with muster_intents {space}';
    return pageAnswer('muster_spaces', 'spaces', page.items, line, next, page.nextCursor);
  },
});

const show = tool({
  name: 'muster_space',
  title: 'Read a space and its members',
  description:
    "Read a space: who owns it, who claims, its orchestrators' priority cap, and its members with their roles. Use it to see who may declare and claim there.",
  input: z.object({ name: spaceName('the space') }),
  public: true,
  readOnly: true,
  async run({ name }, call) {
    const space = (await request(call.target, `api/spaces/${path(name)}`)) as Space & { members: Member[] };
    const members = space.members.map((m) => `${m.handle} (${m.role})`).join(', ') || 'no members yet';
    return spaceAnswer(
      space,
      `Space ${space.name}: ${about(space)}. Members: ${members}.`,
      `its owner adds or re-roles members with muster_space_member_add {space: "${space.name}", handle, role}; read its intents with muster_intents {space: "${space.name}"}`,
      { members: space.members },
    );
  },
});

const create = tool({
  name: 'muster_space_create',
  title: 'Make a space',
  description:
    'Make a space you own, where you declare work intents for workers to claim. Use it to set up work: then add workers (and orchestrators) with muster_space_member_add, and declare with muster_intent_declare.',
  input: z.object({
    name: spaceName("the new space's name"),
    description: description.optional(),
    claim: claim.optional(),
    orchestratorPriority: cap.optional(),
  }),
  async run(body, call) {
    const space = (await request(call.target, 'api/spaces', { body })) as Space;
    return spaceAnswer(
      space,
      `Made space ${space.name} (${about(space)}).`,
      `add members with muster_space_member_add {space: "${space.name}", handle, role: "worker"}, then declare work with muster_intent_declare {space: "${space.name}", title, footprint}`,
    );
  },
});

const change = tool({
  name: 'muster_space_set',
  title: 'Change a space',
  description:
    "Change a space you own: its description, who claims, or its orchestrators' priority cap. Use it when the rules of the work change; what you leave out stays.",
  input: z.object({
    name: spaceName('the space'),
    description: description.nullable().optional().describe('what the space is for; null removes it'),
    claim: claim.optional(),
    orchestratorPriority: cap.optional(),
  }),
  async run({ name, ...body }, call) {
    if (Object.keys(body).length === 0)
      throw new UsageError(
        'muster_space_set needs something to change',
        'Send description (null removes it), claim or orchestratorPriority',
      );
    const space = (await request(call.target, `api/spaces/${path(name)}`, { method: 'PATCH', body })) as Space;
    return spaceAnswer(
      space,
      `Changed space ${space.name} (${about(space)}).`,
      `read it with muster_space {name: "${space.name}"}`,
    );
  },
});

const addMember = tool({
  name: 'muster_space_member_add',
  title: 'Add a member to a space, or change its role',
  description:
    'Make an agent an orchestrator or a worker of a space you own, or change the role of one that is already a member. Use it before the agent declares (orchestrator) or claims (worker) there.',
  input: z.object({ space: spaceName('the space'), handle, role }),
  async run({ space, handle: who, role: asked }, call) {
    const member = (await request(call.target, `api/spaces/${path(space)}/members/${path(who)}`, {
      method: 'PUT',
      body: { role: asked },
    })) as Member;
    const next = `read the members with muster_space {name: "${space}"}; remove one with muster_space_member_remove {space: "${space}", handle}`;
    return {
      text: `${member.handle} is ${aRole(member.role)} in space ${space}. Next: ${next}.`,
      structured: { space, member, next },
    };
  },
});

const removeMember = tool({
  name: 'muster_space_member_remove',
  title: 'Remove a member from a space',
  description:
    'Remove an agent from a space you own: it no longer declares or claims there. Use it when an agent leaves the work.',
  input: z.object({ space: spaceName('the space'), handle }),
  async run({ space, handle: who }, call) {
    await request(call.target, `api/spaces/${path(space)}/members/${path(who)}`, { method: 'DELETE' });
    const next = `read the members with muster_space {name: "${space}"}`;
    return {
      text: `Removed ${who} from space ${space}. Next: ${next}.`,
      structured: { space, handle: who, removed: true, next },
    };
  },
});

export const spaceTools: readonly MusterTool[] = [spaces, show, create, change, addMember, removeMember];
