/**
 * GET /.well-known/ai-catalog.json: the hub's AI Catalog (Agent-Card/ai-catalog, specVersion
 * 1.0, the Level 2 "Discoverable" shape: `specVersion`, `host`, `entries`), listing every public
 * base — the hub, the bases kinds bring (memory), each space and each agent — as an entry of type
 * `application/a2a-agent-card+json` whose `url` is the base's card. Public: no token needed.
 *
 * The format has no paging; it partitions big catalogs into nested catalogs (entries of type
 * `application/ai-catalog+json`). So each document lists at most `CATALOG.page` spaces and as many
 * agents; the root links to every further page of each (one level deep), and every page links to
 * the one after it (`?agents=<cursor>`, `?spaces=<cursor>`), so a client that follows the links
 * never misses a base. The pages' starts come from a walk of the hub's lists, kept per process
 * for `CATALOG.boundariesMs`: a root fetch reads the first and the last page of each kind (the
 * whole lists once a window), never more. See docs/a2a-surface.md#the-ai-catalog.
 *
 * Names and descriptions are the cards' own (built by the same functions), so they cannot drift.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../a2a/validate.js';
import { invalidParams, isHubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import { SPACE_NAME } from '../../hub/spaces.js';
import type { AgentRecord, SpaceRecord } from '../../store/store.js';
import { baseUrl } from '../http/context.js';
import {
  agentEntry,
  hubEntry,
  kindBaseEntry,
  registryEntry,
  spaceEntry,
  type CatalogEntry,
} from './catalog-entries.js';

export const CATALOG_PATH = '.well-known/ai-catalog.json';
export const CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';
/** The version of the AI Catalog draft these documents follow (its `specVersion`). */
export const CATALOG_SPEC_VERSION = '1.0';

/** The catalog's bounds. Not frozen so that tests can make pages small; nothing else changes them. */
export const CATALOG = {
  /** Spaces, and agents, listed in one document at most. */
  page: 500,
  /** How long a process reuses its walk of where each page starts. */
  boundariesMs: 10_000,
};

export interface CatalogDocument {
  specVersion: string;
  host?: { displayName: string; identifier?: string; documentationUrl?: string };
  entries: CatalogEntry[];
}

type Kind = 'agents' | 'spaces';
const KINDS: readonly Kind[] = ['agents', 'spaces'];

const query = z
  .object({
    agents: z.string().min(1, 'is an empty page token').optional(),
    spaces: z.string().regex(SPACE_NAME, 'is not a page token this hub issued').optional(),
  })
  .strict()
  .refine((q) => !(q.agents !== undefined && q.spaces !== undefined), {
    message: 'asks for two pages at once: send agents or spaces, not both',
    path: ['spaces'],
  });

const pageUrl = (hubBase: string, kind: Kind, cursor: string) =>
  `${hubBase}${CATALOG_PATH}?${kind}=${encodeURIComponent(cursor)}`;

/** A link to another page of the catalog: a nested catalog, named by its URL. */
const pageEntry = (hubBase: string, kind: Kind, cursor: string, displayName: string): CatalogEntry => {
  const url = pageUrl(hubBase, kind, cursor);
  return {
    identifier: url,
    type: CATALOG_MEDIA_TYPE,
    url,
    displayName,
    description: `More ${kind} on this hub, ${CATALOG.page} a page at most.`,
    tags: ['catalog', kind],
  };
};

interface Page<T> {
  items: T[];
  /** Where the page after this one starts, if there is one. */
  next?: string;
}

interface Boundaries {
  at: number;
  page: number;
  /** Where page 2, 3, … of each kind starts. */
  starts: Record<Kind, string[]>;
}

/** The hub's AI Catalog over its services (never the store). */
export function catalogRoutes(app: FastifyInstance, hub: Hub, options: { publicUrl: URL | undefined }): void {
  const read = async (kind: Kind, cursor: string | undefined): Promise<Page<AgentRecord | SpaceRecord>> => {
    try {
      if (kind === 'agents') {
        const page = await hub.identity.list({ limit: CATALOG.page, ...(cursor ? { cursor } : {}) });
        return { items: page.agents, ...(page.hasMore && page.cursor ? { next: page.cursor } : {}) };
      }
      const page = await hub.spaces.list({ limit: CATALOG.page, ...(cursor ? { cursor } : {}) });
      return { items: page.data, ...(page.hasMore && page.cursor ? { next: page.cursor } : {}) };
    } catch (e) {
      if (cursor !== undefined && isHubError(e) && e.code === 'INVALID_PARAMS')
        throw invalidParams(
          kind,
          'is not a page token this hub issued',
          'Follow the links in /.well-known/ai-catalog.json, or fetch it without a query',
        );
      throw e;
    }
  };

  /** Where every page after `from` starts (every page after the first when none), walking the list a page at a time. */
  const walk = async (kind: Kind, from?: string): Promise<string[]> => {
    const starts: string[] = [];
    let page = await read(kind, from);
    while (page.next) {
      starts.push(page.next);
      page = await read(kind, page.next);
    }
    return starts;
  };

  let walking: Promise<Boundaries> | undefined;
  let known: Boundaries | undefined;
  /**
   * Where the pages after the first start. The known starts are kept while the window lasts, the
   * page size holds and the first one is still where the root's first page ends; either way the
   * last known page is read again, so bases added since (they come last) get their pages at once.
   */
  const starts = (firstNext: Record<Kind, string | undefined>): Promise<Boundaries> => {
    const kept =
      known &&
      known.page === CATALOG.page &&
      Date.now() - known.at < CATALOG.boundariesMs &&
      KINDS.every((k) => known!.starts[k][0] === firstNext[k])
        ? known
        : undefined;
    walking ??= (async () => {
      const at = kept?.at ?? Date.now();
      const page = CATALOG.page;
      const extend = async (k: Kind) => {
        const have = kept?.starts[k] ?? [];
        return have.length === 0 ? walk(k) : [...have, ...(await walk(k, have.at(-1)))];
      };
      const [agents, spaces] = await Promise.all([extend('agents'), extend('spaces')]);
      return (known = { at, page, starts: { agents, spaces } });
    })().finally(() => (walking = undefined));
    return walking;
  };

  const send = (request: FastifyRequest, reply: FastifyReply, document: CatalogDocument) => {
    const body = JSON.stringify(document);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    reply.header('cache-control', 'public, max-age=60').header('etag', etag).type(CATALOG_MEDIA_TYPE);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.send(body);
  };

  app.get(`/${CATALOG_PATH}`, { config: { door: 'rest' } }, async (request, reply) => {
    const asked = parseWith(query, request.query ?? {});
    const hubBase = baseUrl(options.publicUrl, request);
    const host = { displayName: 'Muster', identifier: hubBase };

    // A later page of one kind: its bases, then a link to the page after it.
    const kind: Kind | undefined =
      asked.agents !== undefined ? 'agents' : asked.spaces !== undefined ? 'spaces' : undefined;
    if (kind) {
      const page = await read(kind, asked[kind]);
      const entries = page.items.map((item) =>
        kind === 'agents' ? agentEntry(hubBase, item as AgentRecord) : spaceEntry(hubBase, item as SpaceRecord),
      );
      if (page.next) entries.push(pageEntry(hubBase, kind, page.next, `More ${kind}`));
      return send(request, reply, { specVersion: CATALOG_SPEC_VERSION, host, entries });
    }

    // The root: the hub and the kinds' own bases (memory), the first page of each kind, and a link to every later page.
    const [agents, spaces] = await Promise.all([read('agents', undefined), read('spaces', undefined)]);
    const entries: CatalogEntry[] = [
      hubEntry(hubBase),
      registryEntry(hubBase), // POST search over the agents (catalog-search.ts)
      ...hub.kinds.bases.map((b) => kindBaseEntry(hubBase, b)),
      ...(spaces.items as SpaceRecord[]).map((s) => spaceEntry(hubBase, s)),
      ...(agents.items as AgentRecord[]).map((a) => agentEntry(hubBase, a)),
    ];
    if (agents.next || spaces.next) {
      const found = await starts({ agents: agents.next, spaces: spaces.next });
      for (const k of ['spaces', 'agents'] as const) {
        const all = found.starts[k];
        all.forEach((cursor, i) =>
          entries.push(
            pageEntry(
              hubBase,
              k,
              cursor,
              `${k === 'agents' ? 'Agents' : 'Spaces'}, page ${i + 2} of ${all.length + 1}`,
            ),
          ),
        );
      }
    }
    return send(request, reply, { specVersion: CATALOG_SPEC_VERSION, host, entries });
  });
}
