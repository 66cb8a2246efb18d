/**
 * Spaces and their members. A space is a public base where work intents are declared and
 * claimed; its intents are tasks like any other (kind `intent`, contextId = the space's name).
 * A store promises: a name is taken once, whichever process creates it; a member has one role
 * per space (setting it again replaces it); every read sees every committed write, on every
 * process (nothing here is cached above the store).
 */

export type ClaimPolicy = 'open' | 'members';
export type SpaceRole = 'orchestrator' | 'worker';

export interface SpaceRecord {
  name: string;
  description?: string;
  /** Who may claim: any registered agent, or only workers and the owner. */
  claim: ClaimPolicy;
  /** Handle of the agent that made the space; absent when the admin made it. */
  owner?: string;
  /** The highest priority an orchestrator may declare at (the owner and the admin have no cap). */
  orchestratorPriority: number;
  createdAt: number;
  updatedAt: number;
}

export interface SpaceMember {
  handle: string;
  role: SpaceRole;
  addedAt: number;
}

/** What a PATCH may change; `description: null` removes it. */
export interface SpacePatch {
  description?: string | null;
  claim?: ClaimPolicy;
  orchestratorPriority?: number;
  updatedAt: number;
}

export interface SpaceStore {
  /** StoreConflict 'space-name' when the name is taken; nothing is written then. */
  createSpace(space: SpaceRecord): Promise<void>;
  getSpace(name: string): Promise<SpaceRecord | undefined>;
  /** The space as it is after the patch; undefined when there is no such space. */
  updateSpace(name: string, patch: SpacePatch): Promise<SpaceRecord | undefined>;
  /** Spaces by name, `limit` at most, after the name `after` when given. */
  listSpaces(query: { limit: number; after?: string }): Promise<{ spaces: SpaceRecord[]; hasMore: boolean }>;
  /** The space's members by handle. */
  members(space: string): Promise<SpaceMember[]>;
  memberOf(space: string, handle: string): Promise<SpaceMember | undefined>;
  /** Adds the member or replaces its role (the space and the agent must exist). */
  setMember(space: string, member: SpaceMember): Promise<void>;
  /** False when the agent was not a member. */
  removeMember(space: string, handle: string): Promise<boolean>;
}
