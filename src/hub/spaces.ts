/**
 * Spaces: public bases where work is declared and claimed. Anyone reads a space; an agent (its
 * owner) or the admin makes one; the owner or the admin changes it and its members.
 */
import { z } from 'zod';
import { parseWith } from '../a2a/validate.js';
import { requirePublished } from '../wire/screening.js';
import { HubError } from '../errors/hub-error.js';
import { requireActor, requireToken, type Caller } from '../identity/caller.js';
import type { Identity } from '../identity/agents.js';
import { StoreConflict, type SpaceMember, type SpaceRecord, type SpaceRole, type SpaceStore } from '../store/store.js';
import type { Standing } from './kind.js';
import { PRIORITY } from '../wire/priority.js'; // a space caps its orchestrators' intents within the scale

export const SPACE_NAME = /^[a-z0-9-]{2,40}$/;
/** Said in every refusal of a caller without the right token at a space: reading a space needs none. */
export const READS_NEED_NO_TOKEN = 'Reads (GetTask, ListTasks, SubscribeToTask) at a space need no token';
const nameRule = 'must be 2 to 40 characters: lowercase letters, digits and -';
const claimRule = z.enum(
  ['open', 'members'],
  'must be "open" (any registered agent claims) or "members" (only workers and the owner)',
);
const description = z.string('must be text').trim().max(2000, 'must be at most 2000 characters');
const priorityCap = z
  .number('must be a whole number from 1 to 10')
  .int('must be a whole number from 1 to 10')
  .min(PRIORITY.min, 'must be from 1 to 10')
  .max(PRIORITY.max, 'must be from 1 to 10');

const createSchema = z
  .object({
    name: z.string("is required: the space's name").regex(SPACE_NAME, nameRule),
    description: description.optional(),
    claim: claimRule.optional(),
    orchestratorPriority: priorityCap.optional(),
  })
  .strict();
const patchSchema = z
  .object({
    description: description.nullable().optional(),
    claim: claimRule.optional(),
    orchestratorPriority: priorityCap.optional(),
  })
  .strict();
const memberSchema = z
  .object({
    role: z.enum(
      ['orchestrator', 'worker'],
      'must be "orchestrator" (declares and withdraws its own intents) or "worker" (claims)',
    ),
  })
  .strict();

export interface SpaceWithMembers extends SpaceRecord {
  members: SpaceMember[];
}

export class Spaces {
  constructor(
    private readonly store: SpaceStore,
    private readonly identity: Identity,
    private readonly clock: () => number,
  ) {}

  async create(caller: Caller, body: unknown): Promise<SpaceRecord> {
    requireActor(caller, 'Making a space', 'make a space');
    const input = parseWith(createSchema, body);
    requirePublished({ description: input.description }); // spaces are public to read
    const now = this.clock();
    const space: SpaceRecord = {
      name: input.name,
      ...(input.description ? { description: input.description } : {}),
      claim: input.claim ?? 'members',
      ...(caller.kind === 'agent' ? { owner: caller.handle } : {}),
      orchestratorPriority: input.orchestratorPriority ?? PRIORITY.min,
      createdAt: now,
      updatedAt: now,
    };
    await this.store.createSpace(space).catch((e: unknown) => {
      if (e instanceof StoreConflict && e.what === 'space-name')
        throw new HubError('NAME_TAKEN', `The space name ${input.name} is taken`, {
          hint: 'Choose another name',
          fields: [{ field: 'name', description: 'is taken' }],
        });
      throw e;
    });
    return space;
  }

  async get(name: string): Promise<SpaceWithMembers> {
    const space = await this.require(name);
    return Object.assign({}, space, { members: await this.store.members(name) });
  }

  async list(query: { cursor?: string; limit?: number }) {
    const page = await this.store.listSpaces({
      limit: query.limit ?? 20,
      ...(query.cursor ? { after: query.cursor } : {}),
    });
    const last = page.spaces.at(-1);
    return { data: page.spaces, hasMore: page.hasMore, ...(page.hasMore && last ? { cursor: last.name } : {}) };
  }

  async update(caller: Caller, name: string, body: unknown): Promise<SpaceRecord> {
    await this.requireOwner(caller, name, 'change a space');
    const patch = parseWith(patchSchema, body);
    requirePublished({ description: patch.description });
    const updated = await this.store.updateSpace(name, Object.assign({}, patch, { updatedAt: this.clock() }));
    if (!updated) throw spaceNotFound(name);
    return updated;
  }

  async setMember(caller: Caller, name: string, handle: string, body: unknown): Promise<SpaceMember> {
    await this.requireOwner(caller, name, 'add members');
    const { role } = parseWith(memberSchema, body);
    await this.identity.requireAgent(handle);
    const member: SpaceMember = { handle, role: role as SpaceRole, addedAt: this.clock() };
    await this.store.setMember(name, member);
    return member;
  }

  async removeMember(caller: Caller, name: string, handle: string): Promise<void> {
    await this.requireOwner(caller, name, 'remove members');
    if (!(await this.store.removeMember(name, handle))) {
      throw new HubError('NOT_FOUND', `${handle} is not a member of space ${name}`, {
        hint: `List the members with GET /api/spaces/${name}`,
      });
    }
  }

  /** The caller's standing in the space (what the intent kind decides by); undefined: no such space. */
  async standing(name: string, caller: Caller): Promise<Standing | undefined> {
    const space = await this.store.getSpace(name);
    if (!space) return undefined;
    if (caller.kind === 'admin') return { space, role: 'admin' };
    if (caller.kind !== 'agent') return { space };
    if (caller.handle === space.owner) return { space, role: 'owner' };
    const member = await this.store.memberOf(name, caller.handle);
    return member ? { space, role: member.role } : { space };
  }

  /** The space, or SPACE_NOT_FOUND. */
  async require(name: string): Promise<SpaceRecord> {
    const space = SPACE_NAME.test(name) ? await this.store.getSpace(name) : undefined;
    if (!space) throw spaceNotFound(name);
    return space;
  }

  private async requireOwner(caller: Caller, name: string, what: string): Promise<SpaceRecord> {
    requireToken(caller, `To ${what}`);
    const space = await this.require(name);
    if (caller.kind === 'admin' || (caller.kind === 'agent' && caller.handle === space.owner)) return space;
    throw new HubError('FORBIDDEN', `Only the owner of space ${name} or the admin may ${what}`, {
      hint: space.owner ? `The owner is ${space.owner}` : 'The admin made this space',
    });
  }
}

const spaceNotFound = (name: string) =>
  new HubError('SPACE_NOT_FOUND', `There is no space named ${name}`, {
    hint: 'List spaces with GET /api/spaces; make one with POST /api/spaces',
  });
