/**
 * What the web feed reads, all as an anonymous caller through the hub's services, as the REST door
 * does: the view decides what shows. Nothing here reads the store or decides visibility.
 */
import type { Task } from '../../a2a/types.js';
import type { Hub } from '../../hub/hub.js';
import type { FeedKinds } from './feed-kind.js';
import type { RestRead } from '../../hub/kind-module.js';
import { ANONYMOUS } from '../../identity/caller.js';
import { publicProfile } from '../../identity/profile-view.js';
import type { SpaceRecord } from '../../store/store.js';

const AT_HUB = { caller: ANONYMOUS, door: { kind: 'hub' } } as const;
/** A list page's length. */
export const FEED_LIST_SIZE = 50;
/** How many of a space's intents its page shows: the latest. */
export const SPACE_INTENTS = 100;

/** One page of a list, in the list's own order (tasks latest first, agents as registered, spaces by name), and the cursor of the page after it, if there is one. */
export interface FeedPage<T> {
  items: T[];
  next?: string;
}

export type AgentProfile = ReturnType<typeof publicProfile>;

const paged = <T>(items: T[], next: string | undefined): FeedPage<T> => (next ? { items, next } : { items });

export class FeedReads {
  private readonly kindReads: ReadonlyMap<string, RestRead>;

  constructor(
    private readonly hub: Hub,
    /** The kinds' parts of the feed, which pages ask for a task's link, title and page. */
    readonly kinds: FeedKinds,
  ) {
    this.kindReads = new Map(hub.kindReads.map((r) => [r.path, r as RestRead]));
  }

  /** The latest public tasks of `kinds` (all public tasks when not given), from `cursor` on. */
  async tasks(kinds?: readonly string[], cursor?: string): Promise<FeedPage<Task>> {
    const page = await this.hub.tasks.list(
      AT_HUB,
      { pageSize: FEED_LIST_SIZE, ...(cursor ? { pageToken: cursor } : {}) },
      kinds,
    );
    return paged(page.tasks, page.nextPageToken || undefined);
  }

  task(id: string): Promise<Task> {
    return this.hub.tasks.get(AT_HUB, id);
  }

  /** A space's latest tasks (its intents), as anyone lists them at the space's base. */
  async spaceTasks(name: string): Promise<Task[]> {
    const at = { caller: ANONYMOUS, door: { kind: 'space', name } } as const;
    return (await this.hub.tasks.list(at, { pageSize: SPACE_INTENTS, historyLength: 0, includeArtifacts: true })).tasks;
  }

  async spaces(cursor?: string): Promise<FeedPage<SpaceRecord>> {
    const page = await this.hub.spaces.list({ limit: FEED_LIST_SIZE, ...(cursor ? { cursor } : {}) });
    return paged(page.data, page.cursor);
  }

  space(name: string) {
    return this.hub.spaces.get(name);
  }

  /** Agents as the directory lists them: their public profiles, without their own endpoints. */
  async agents(cursor?: string): Promise<FeedPage<AgentProfile>> {
    const page = await this.hub.identity.list({ limit: FEED_LIST_SIZE, ...(cursor ? { cursor } : {}) });
    return paged(
      page.agents.map((agent) => publicProfile(agent, '/', { endpoint: false })),
      page.cursor,
    );
  }

  /** Agents a directory search finds, best first (the engine of GET /api/agents?q=): public profiles, as agents() lists them. */
  async searchAgents(q: string, cursor?: string): Promise<FeedPage<AgentProfile>> {
    const page = await this.hub.identity.search({ q }, { limit: FEED_LIST_SIZE, ...(cursor ? { cursor } : {}) });
    return paged(
      page.agents.map((agent) => publicProfile(agent, '/', { endpoint: false })),
      page.cursor,
    );
  }

  /** An agent's public profile, as GET /api/agents/{handle} answers it (its links relative to the hub). */
  async agent(handle: string): Promise<AgentProfile> {
    return publicProfile(await this.hub.identity.agent(handle), '/');
  }

  /** A read a kind serves over REST, answered for an anonymous caller. */
  kindRead(path: string, params: Record<string, string>, query: unknown): Promise<unknown> {
    const read = this.kindReads.get(path);
    if (!read) throw new Error(`no kind serves ${path}`);
    return read.answer({ caller: async () => ANONYMOUS, params, query });
  }
}
