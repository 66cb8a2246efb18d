import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../a2a/validate.js';
import type { Hub } from '../../hub/hub.js';
import { BOARD_MEDIA_TYPE } from '../../hub/kinds/memory/board-file.js';
import { callerOf } from '../http/context.js';
import { pageFields } from './page-query.js';

const listQuery = z.object(pageFields).strict();

/** Memory boards read over REST: public ones need no token. Writes are memory skills, at /memory/. */
export function boardRoutes(app: FastifyInstance, hub: Hub): void {
  const config = { door: 'rest' as const };

  app.get('/api/boards', { config }, async (request) => hub.boards.page(await callerOf(hub, request), parseWith(listQuery, request.query)));

  app.get('/api/boards/:id', { config }, async (request, reply) => {
    const file = await hub.boards.file(await callerOf(hub, request), (request.params as { id: string }).id);
    return reply.type(BOARD_MEDIA_TYPE).send(JSON.stringify(file));
  });
}
