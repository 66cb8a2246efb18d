/**
 * POST /search: the hub's directory as an Agentic Resource Discovery registry (ARD v0.9 draft,
 * 28 May 2026, §7.2; its OpenAPI 0.5.0 `SearchRequest`/`SearchResponse`). A request
 * `{query: {text, filter?}, federation?, pageSize?, pageToken?}` is answered with
 * `{results, pageToken?}`: each result is the agent's AI Catalog entry (the one
 * /.well-known/ai-catalog.json lists) with `score` (0–100) and `source` (this hub). The search is
 * the directory's own (hub.identity.search: the same engine as GET /api/agents?q=, directory.search
 * and the feed), so it finds exactly what they find, for anyone, as they do.
 *
 * Filters the directory can answer: `type` (an agent's entry is `application/a2a-agent-card+json`),
 * `tags` and `capabilities` (a declared skill id), one value each; any other key is refused, as
 * the draft allows. The hub has no upstream registry, so every `federation` searches its own index.
 * Refusals are the REST API's (a 400 naming the field and what to send).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../a2a/validate.js';
import { invalidParams, isHubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import { SEARCH_TEXT_MAX } from '../../identity/profile.js';
import { baseUrl, callerOf } from '../http/context.js';
import { agentEntry, CARD_TYPE } from './catalog-entries.js';

const PAGE_SIZE = { default: 10, max: 100 };

/** One value, or an array of one (the draft takes a bare scalar as a one-element array). */
const oneValue = (what: string) =>
  z
    .union([z.string(), z.array(z.string()).length(1, `takes one ${what} here`)])
    .transform((v) => (Array.isArray(v) ? v[0]! : v));

const searchRequest = z
  .object({
    query: z
      .object({
        text: z.string().trim().min(1, 'must say what to find').max(SEARCH_TEXT_MAX),
        filter: z
          .object({
            type: z.union([z.string(), z.array(z.string())]).optional(),
            tags: oneValue('tag').optional(),
            capabilities: oneValue('skill id').optional(),
          })
          .strict()
          .optional(),
      })
      .strict(),
    federation: z.enum(['auto', 'referrals', 'none']).optional(),
    pageSize: z.number().int().min(1).max(PAGE_SIZE.max).optional(),
    pageToken: z.string().min(1).optional(),
  })
  .strict();

/** A directory score (0 to 2: a match in handle or name adds 1) as the draft's 0–100. */
const percent = (score: number) => Math.min(100, Math.max(0, Math.round(score * 50)));

export function catalogSearchRoutes(app: FastifyInstance, hub: Hub, options: { publicUrl: URL | undefined }): void {
  app.post('/search', { config: { door: 'rest' } }, async (request) => {
    await callerOf(hub, request); // a token, if sent, must be valid; the directory is public
    const { query, pageSize, pageToken } = parseWith(searchRequest, request.body ?? {});
    const hubBase = baseUrl(options.publicUrl, request);
    const types = query.filter?.type === undefined ? [CARD_TYPE] : [query.filter.type].flat();
    if (!types.includes(CARD_TYPE)) return { results: [] }; // the directory holds only agents' cards
    const found = await hub.identity
      .search(
        {
          q: query.text,
          ...(query.filter?.tags !== undefined ? { tag: query.filter.tags } : {}),
          ...(query.filter?.capabilities !== undefined ? { skill: query.filter.capabilities } : {}),
        },
        { cursor: pageToken, limit: pageSize ?? PAGE_SIZE.default },
      )
      .catch((e: unknown) => {
        if (pageToken === undefined || !isHubError(e) || e.code !== 'INVALID_PARAMS') throw e;
        throw invalidParams(
          'pageToken',
          'is not a page token of this search',
          'Send the pageToken of the previous answer with the same query, or none',
        );
      });
    return {
      results: found.agents.map((agent, i) => ({
        ...agentEntry(hubBase, agent),
        score: percent(found.scores[i] ?? 0),
        source: hubBase,
      })),
      ...(found.hasMore && found.cursor ? { pageToken: found.cursor } : {}),
    };
  });
}
