/**
 * Agents, their tokens and the hub's admin token. A store promises: a token revoked or replaced
 * is refused by `findToken` at once, on every process; a handle is taken once; the admin token's
 * hash, once stored, is the one every process uses. Changes to tokens and to agent records are
 * announced on the store's events (see events.ts), so every process hears of them.
 */
import type { QuotaCharge, QuotaGate } from './receipts.js';

/** Who paused an agent, and when: new direct tasks to it are refused until it is resumed. */
export interface AgentPause {
  at: number;
  by: 'operator' | 'admin';
}

export interface AgentRecord {
  handle: string;
  /** The agent's stable public id (a UUID), given at registration: REST routes take it wherever they take the handle. */
  id: string;
  name?: string;
  description?: string;
  /** The agent's own A2A base URL, if it has one. */
  endpoint?: string;
  /** The URL of the interface the hub speaks to the endpoint, found in its card when the agent proved it controls it. */
  endpointRpcUrl?: string;
  /** The binding and version of that interface; absent: 1.0 JSON-RPC (endpoints verified before others were spoken). */
  endpointProtocol?: EndpointProtocol;
  /** How the hub follows the endpoint's tasks, the best means its card offers; absent: by reading them. */
  endpointFollow?: FollowMeans;
  endpointVerifiedAt?: number;
  /** New direct tasks are also sent to the verified endpoint. */
  forwarding?: boolean;
  /** The skills the agent declares in its profile (PATCH /api/agents/{handle}); its card lists them. */
  skills?: AgentSkill[];
  /** Short lower-case words the agent is found by in the directory. */
  tags?: string[];
  /** Media types the agent takes in parts sent to it; absent: text/plain and application/json (identity/media-modes.ts). */
  inputModes?: string[];
  /** Media types the agent answers in; absent: text/plain and application/json. */
  outputModes?: string[];
  /** The operator who owns the agent (registered it with an operator token). */
  operator?: string;
  /** Set while the agent is paused: it takes no new direct tasks. */
  paused?: AgentPause;
  createdAt: number;
}

/** An agent as it is registered: its id may be left to the store. */
export type NewAgent = Omit<AgentRecord, 'id'> & { id?: string };

/** How the hub speaks to an agent's own endpoint (delivery/remote/interface.ts picks it from the card). */
export type EndpointProtocol = 'JSONRPC/1.0' | 'HTTP+JSON/1.0' | 'JSONRPC/0.3';

/** How the hub follows a forwarded task: its stream, push notifications to the hub, or reading it again. */
export type FollowMeans = 'streaming' | 'push' | 'polling';

/** What verification found in the endpoint's card: the interface the hub speaks, and how it follows tasks there. */
export interface SpokenInterface {
  url: string;
  protocol: EndpointProtocol;
  follow: FollowMeans;
}

/** A skill an agent declares, in the Agent Card's AgentSkill shape (identity/profile.ts bounds it). */
export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags?: string[];
  examples?: string[];
}

/** What a profile update changes: a member left out stays; `null` (name, description) or `[]` removes. */
export interface ProfilePatch {
  name?: string | null;
  description?: string | null;
  skills?: AgentSkill[];
  tags?: string[];
  /** `null` goes back to the defaults. */
  inputModes?: string[] | null;
  outputModes?: string[] | null;
}

/**
 * A directory search: each word of `q` is found, as a word or a word's start, in the agent's
 * handle, name, description, tags or skills (names, descriptions, tags, examples), by the
 * store's full-text index; `skill` and `tag` match exactly. Ranked: every word in the handle or
 * name first, then the index's rank, then registration order (agent-profile-rows.ts).
 */
export interface AgentSearch {
  q?: string;
  skill?: string;
  tag?: string;
  limit: number;
  after?: AgentSearchCursor;
}

/** A page of a directory search: the agents, each one's score (0 to 2: 1 for every word in the handle or name, plus the index's rank below 1). */
export interface FoundAgents {
  agents: AgentRecord[];
  scores: number[];
  hasMore: boolean;
  last?: AgentSearchCursor;
}

/** Where a page of search results starts: after this agent, in (score desc, registration) order. */
export interface AgentSearchCursor extends AgentCursor {
  score: number;
}

export interface EndpointChallenge {
  challenge: string;
  endpoint: string;
  expiresAt: number;
}

export interface TokenRecord {
  id: string;
  handle: string;
  createdAt: number;
  revokedAt?: number;
}

/** Where a page of agents starts: after this agent, in registration order. */
export interface AgentCursor {
  createdAt: number;
  handle: string;
}

export interface IdentityStore {
  /**
   * Registers an agent with its first token (and its operator, if any), charging `quotas` in the
   * same transaction; a handle an agent or operator holds is StoreConflict('handle'). An agent
   * given without an id gets a new UUID.
   */
  insertAgent(agent: NewAgent, token: { id: string; hash: string }, quotas?: QuotaCharge[]): Promise<void>;
  getAgent(handle: string): Promise<AgentRecord | undefined>;
  /** The agent whose public id (AgentRecord.id) this is. */
  getAgentById(id: string): Promise<AgentRecord | undefined>;
  /** Agents in registration order (then handle), `limit` at most, after `after` when given. */
  listAgents(query: { limit: number; after?: AgentCursor }): Promise<{ agents: AgentRecord[]; hasMore: boolean }>;
  /** Applies a profile patch; the agent as it is after it, undefined when there is no such agent. Announced as a record change. */
  updateProfile(handle: string, patch: ProfilePatch): Promise<AgentRecord | undefined>;
  /** Agents matching a directory search, best first (see AgentSearch), `limit` at most; `last`, where the next page starts. */
  searchAgents(query: AgentSearch): Promise<FoundAgents>;
  /** The live (not revoked) token with this hash, if any; QuotaExceeded first if `gate` is closed (see QuotaGate). */
  findToken(hash: string, gate?: QuotaGate): Promise<TokenRecord | undefined>;
  listTokens(handle: string): Promise<TokenRecord[]>;
  /** Adds a token; with `replace`, revokes every other live token of the agent in the same transaction. */
  insertToken(handle: string, token: { id: string; hash: string }, now: number, replace: boolean): Promise<void>;
  revokeToken(handle: string, tokenId: string, now: number): Promise<boolean>;
  /** One outstanding challenge per agent; a new one replaces the old. */
  saveChallenge(handle: string, challenge: EndpointChallenge): Promise<void>;
  /** Returns and forgets the agent's challenge. */
  takeChallenge(handle: string): Promise<EndpointChallenge | undefined>;
  markEndpointVerified(handle: string, endpoint: string, spoken: SpokenInterface, now: number): Promise<AgentRecord>;
  /** Switches forwarding, charging `quotas`; switching off cancels the agent's pending forwards. */
  setForwarding(handle: string, enabled: boolean, quotas: QuotaCharge[]): Promise<AgentRecord>;
  /** The admin token's hash, if one was stored. */
  adminTokenHash(): Promise<string | undefined>;
  /** Stores `hash` as the admin token's unless one is stored already; answers the one that stands. */
  keepAdminTokenHash(hash: string): Promise<string>;
}
