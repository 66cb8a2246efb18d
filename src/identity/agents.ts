import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { parseWith } from '../a2a/validate.js';
import { whenMissing } from '../a2a/zod-issues.js';
import { HubError } from '../errors/hub-error.js';
import { decodePageToken, encodePageToken, encodeRankToken, rankCursorFrom } from '../paging/page-token.js';
import {
  QuotaExceeded,
  StoreConflict,
  type AgentRecord,
  type IdentityStore,
  type OperatorStore,
  type TokenRecord,
} from '../store/store.js';
import type { Quotas } from './quotas.js';
import type { Caller } from './caller.js';
import { refuseReservedHandle } from './reserved-handles.js';
import { isAgentId } from './agent-id.js';
import { modeList } from './media-modes.js';
import { profilePatchSchema, profileTexts, refuseReservedSkillIds, type SearchFilters } from './profile.js';
import { requirePublished } from '../wire/screening.js';
import { hashToken, newToken, newTokenId } from './tokens.js';

export const HANDLE_PATTERN = /^[a-z0-9-]{2,40}$/;

/** A handle as a request sends it: agents and operators share the rules (and one namespace). */
export const handleField = z
  .string(whenMissing('a handle of 2 to 40 characters: lowercase letters, digits and -'))
  .regex(HANDLE_PATTERN, 'must be 2 to 40 characters: lowercase letters, digits and -');

const registration = z
  .object({
    handle: handleField,
    name: z.string().min(1).max(100).optional(),
    description: z.string().max(2000).optional(),
    endpoint: z
      .string()
      .url({ error: 'must be an absolute URL' })
      .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL: the base URL of your own A2A endpoint')
      .optional(),
    inputModes: modeList.optional(),
    outputModes: modeList.optional(),
  })
  .strict();

export type Registration = z.infer<typeof registration>;

/** What an agent page token is bound to: the list has no filters, only its own name. */
const AGENT_PAGES = 'agents';

/** Handles remembered as existing, at most; the least recently used go first. */
const KNOWN_HANDLES = 10_000;

/** The parts of the store identity reads and writes: agents and their tokens, and pauses. */
type AgentsStore = IdentityStore & Pick<OperatorStore, 'setPause'>;

/**
 * Agents: registration, the directory, profiles, pauses, and the owner's token actions (rotate,
 * list, revoke). Who a bearer token belongs to is authentication.ts.
 */
export class Identity {
  /**
   * Handles known to exist. Agents are never deleted, so a handle once found exists for good, on
   * every process: this is a fact, not a copy of a record that could change (records are read
   * from the store, which caches them only when it is exclusive).
   */
  private readonly existing = new LRUCache<string, true>({ max: KNOWN_HANDLES });

  constructor(
    private readonly store: AgentsStore,
    private readonly quotas: Quotas,
    private readonly clock: () => number = Date.now,
    /** Skill ids the hub itself lists on cards: a profile may not declare them (profile.ts). */
    private readonly reservedSkillIds: ReadonlySet<string> = new Set(),
    /** Who may register: anyone (open), or only the admin and operators (admin). */
    private readonly registration: 'open' | 'admin' = 'open',
  ) {}

  /**
   * Registers an agent; `address` (the client's IP) is rate-limited unless the admin registers (or
   * it is loopback). An operator registers agents it then owns.
   */
  async register(caller: Caller, body: unknown, address: string): Promise<{ agent: AgentRecord; token: string }> {
    if (this.registration === 'admin' && caller.kind !== 'admin' && caller.kind !== 'operator') {
      throw new HubError(
        caller.kind === 'anonymous' ? 'UNAUTHENTICATED' : 'FORBIDDEN',
        'Registration on this hub needs the admin token or an operator token',
        {
          hint: "Register with the admin token (muster register --admin-token TOKEN, or MUSTER_ADMIN_TOKEN) or an operator token (--operator-token, or MUSTER_OPERATOR_TOKEN); the hub's admin has them",
        },
      );
    }
    const input = parseWith(registration, body);
    refuseReservedHandle(input.handle);
    requirePublished(profileTexts(input));
    const token = newToken();
    const now = this.clock();
    const agent: AgentRecord = Object.assign({}, input, caller.kind === 'operator' ? { operator: caller.handle } : {}, {
      id: randomUUID(),
      createdAt: now,
    });
    const charges = caller.kind === 'admin' ? [] : this.quotas.charge('register.address', address, now);
    try {
      await this.store.insertAgent(agent, { id: newTokenId(), hash: hashToken(token) }, charges);
    } catch (e) {
      if (e instanceof StoreConflict)
        throw new HubError('HANDLE_TAKEN', `The handle '${input.handle}' is taken`, { hint: 'Choose another handle' });
      if (e instanceof QuotaExceeded) throw this.quotas.refusal(e, now);
      throw e;
    }
    return { agent, token };
  }

  async agent(handle: string): Promise<AgentRecord> {
    const agent = HANDLE_PATTERN.test(handle) ? await this.store.getAgent(handle) : undefined;
    if (!agent)
      throw new HubError('AGENT_NOT_FOUND', `No agent '${handle}' on this hub`, {
        hint: 'Check the handle; the directory (GET /api/agents) lists every agent',
      });
    this.existing.set(handle, true);
    return agent;
  }

  /**
   * The handle a route's agent reference names: a handle as it is, an agent id (agent-id.ts) as
   * its agent's handle. A reference that names no agent is passed on, for the route to refuse.
   */
  async handleOf(ref: string): Promise<string> {
    if (!isAgentId(ref)) return ref;
    return (await this.store.getAgentById(ref.toLowerCase()))?.handle ?? ref;
  }

  /** The agent with this public id (agent-id.ts); AGENT_NOT_FOUND when none has it. */
  async agentById(id: string): Promise<AgentRecord> {
    const agent = isAgentId(id) ? await this.store.getAgentById(id.toLowerCase()) : undefined;
    if (!agent)
      throw new HubError('AGENT_NOT_FOUND', `No agent with the id '${id}' on this hub`, {
        hint: 'Check the id; the directory (GET /api/agents) lists every agent with its agentId',
      });
    return agent;
  }

  /**
   * A page of agents in registration order, for anyone: profiles are public. The page token
   * carries the last agent's registration time and handle (in the task cursor's two slots).
   */
  async list(query: {
    cursor?: string;
    limit?: number;
  }): Promise<{ agents: AgentRecord[]; hasMore: boolean; cursor?: string }> {
    const after = decodePageToken(query.cursor, AGENT_PAGES, 'cursor');
    const page = await this.store.listAgents({
      limit: query.limit ?? 20,
      ...(after ? { after: { createdAt: after.updatedAt, handle: after.id } } : {}),
    });
    const last = page.agents.at(-1);
    if (!page.hasMore || !last) return page;
    return { ...page, cursor: encodePageToken({ updatedAt: last.createdAt, id: last.handle }, AGENT_PAGES) };
  }

  /**
   * Agents matching a directory search (profile.ts searchFields), best first by the store's
   * full-text index (store/agent-profile-rows.ts says how). The page token carries the last
   * agent's score, registration time and handle (the rank cursor's slots).
   */
  async search(
    filters: SearchFilters,
    page: { cursor?: string | undefined; limit?: number | undefined },
  ): Promise<{ agents: AgentRecord[]; scores: number[]; hasMore: boolean; cursor?: string }> {
    const q = filters.q?.toLowerCase();
    const bound = { q, skill: filters.skill, tag: filters.tag };
    const after = rankCursorFrom(page.cursor, [AGENT_PAGES, bound], 'cursor').after;
    const found = await this.store.searchAgents({
      ...(q !== undefined ? { q } : {}),
      ...(filters.skill !== undefined ? { skill: filters.skill } : {}),
      ...(filters.tag !== undefined ? { tag: filters.tag } : {}),
      limit: page.limit ?? 20,
      ...(after ? { after: { score: after.rank ?? 0, createdAt: after.createdAt, handle: after.id } } : {}),
    });
    const { last, ...listed } = found;
    if (!listed.hasMore || !last) return listed;
    return {
      ...listed,
      cursor: encodeRankToken({ rank: last.score, createdAt: last.createdAt, id: last.handle }, [AGENT_PAGES, bound]),
    };
  }

  /** Changes the agent's profile (name, description, skills, tags; profile.ts bounds them): the agent, its operator or the admin. */
  async updateProfile(caller: Caller, handle: string, body: unknown): Promise<AgentRecord> {
    this.requireOwner(caller, await this.agent(handle));
    const patch = parseWith(profilePatchSchema, body);
    refuseReservedSkillIds(patch, this.reservedSkillIds);
    requirePublished(profileTexts(patch));
    const updated = await this.store.updateProfile(handle, patch);
    if (!updated) throw new HubError('AGENT_NOT_FOUND', `No agent '${handle}' on this hub`);
    return updated;
  }

  /** Refuses a handle no agent has, reading the store only for a handle not yet known to exist. */
  async requireAgent(handle: string): Promise<void> {
    if (!this.existing.has(handle)) await this.agent(handle);
  }

  /** A new token for the agent; every older one stops working at once. */
  async rotate(caller: Caller, handle: string): Promise<string> {
    this.requireOwner(caller, await this.agent(handle));
    const token = newToken();
    await this.store.insertToken(handle, { id: newTokenId(), hash: hashToken(token) }, this.clock(), true);
    return token;
  }

  async tokens(caller: Caller, handle: string): Promise<TokenRecord[]> {
    this.requireOwner(caller, await this.agent(handle));
    return this.store.listTokens(handle);
  }

  async revoke(caller: Caller, handle: string, tokenId: string): Promise<void> {
    this.requireOwner(caller, await this.agent(handle));
    const revoked = await this.store.revokeToken(handle, tokenId, this.clock());
    if (!revoked) {
      throw new HubError('NOT_FOUND', `No live token '${tokenId}' for '${handle}'`, {
        hint: `List tokens with GET /api/agents/${handle}/tokens`,
      });
    }
  }

  /**
   * Pauses the agent (`paused`: new direct tasks to it are refused, kinds/direct) or resumes it:
   * its operator or the admin, not the agent itself. The pause is a column of the agent's row,
   * which every send reads, so it holds on every node at once.
   */
  async setPaused(caller: Caller, handle: string, paused: boolean): Promise<AgentRecord> {
    const agent = await this.agent(handle);
    const byOperator = caller.kind === 'operator' && agent.operator === caller.handle;
    if (!byOperator && caller.kind !== 'admin') {
      throw new HubError(
        caller.kind === 'anonymous' ? 'UNAUTHENTICATED' : 'FORBIDDEN',
        `Only ${agent.operator ? `'${handle}''s operator '${agent.operator}'` : "an agent's operator"} or the admin may pause or resume '${handle}'`,
        {
          hint: 'Send the operator token (--operator-token or MUSTER_OPERATOR_TOKEN in the CLI), or the admin token',
        },
      );
    }
    const updated = await this.store.setPause(
      handle,
      paused ? { at: this.clock(), by: byOperator ? 'operator' : 'admin' } : undefined,
    );
    if (!updated) throw new HubError('AGENT_NOT_FOUND', `No agent '${handle}' on this hub`);
    return updated;
  }

  /** The owner actions (profile, tokens, forwarding, endpoint): the agent itself, its operator, or the admin. */
  requireOwner(caller: Caller, agent: AgentRecord): void {
    const { handle } = agent;
    if (caller.kind === 'admin' || (caller.kind === 'agent' && caller.handle === handle)) return;
    if (caller.kind === 'operator' && agent.operator === caller.handle) return;
    throw new HubError(
      caller.kind === 'anonymous' ? 'UNAUTHENTICATED' : 'FORBIDDEN',
      `Only '${handle}', its operator or the admin may do this`,
      {
        hint: `Send ${handle}'s own token, its operator's token (--operator-token), or the admin token (--admin-token or MUSTER_ADMIN_TOKEN in the CLI)`,
      },
    );
  }
}
