/**
 * `GET /api/spaces/{name}/why?path=...`: which of a space's tasks wrote a path, and why: the
 * intents whose landings named it, latest first, each whole as GetTask shows it there (its title
 * and why in `metadata.muster`, the Landing artifact with the file's own note). It needs no token.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../a2a/validate.js';
import { pageFields } from './page-query.js';
import type { Hub } from '../../hub/hub.js';
import type { Task } from '../../a2a/types.js';
import { callerOf } from '../http/context.js';

export const whyQuery = z
  .object({
    path: z.string('send the path as ?path=src/links/limit.ts').trim().min(1, 'must name a path').max(500),
    limit: pageFields.limit,
  })
  .strict();
export type WhyQuery = z.infer<typeof whyQuery>;

/**
 * The tasks of space `name` that wrote `query.path`, as `request`'s caller reads them at the
 * space's base (hub.tasks.wrote); a space that does not exist is SPACE_NOT_FOUND.
 */
export async function whyOf(
  hub: Hub,
  request: FastifyRequest,
  name: string,
  query: WhyQuery,
): Promise<{ tasks: Task[]; hasMore: boolean }> {
  await hub.spaces.require(name);
  const caller = await callerOf(hub, request);
  return hub.tasks.wrote({ caller, door: { kind: 'space', name } }, name, query.path, query.limit ?? 20);
}

export function spaceWhyRoutes(app: FastifyInstance, hub: Hub): void {
  app.get('/api/spaces/:name/why', { config: { door: 'rest' } }, async (request) => {
    const { name } = request.params as { name: string };
    const query = parseWith(whyQuery, request.query);
    const { tasks, hasMore } = await whyOf(hub, request, name, query);
    return { space: name, path: query.path, data: tasks, hasMore };
  });
}
