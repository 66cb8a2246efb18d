import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../a2a/validate.js';
import type { Hub } from '../../hub/hub.js';
import type { SpaceRecord } from '../../store/store.js';
import { baseUrl, callerOf } from '../http/context.js';
import { pageFields } from './page-query.js';
import { isoTime } from '../../wire/iso-time.js';

/** A space as REST shows it, with its A2A base. */
const shown = (space: SpaceRecord, base: string) => ({
  name: space.name,
  ...(space.description ? { description: space.description } : {}),
  claim: space.claim,
  ...(space.owner ? { owner: space.owner } : {}),
  orchestratorPriority: space.orchestratorPriority,
  createdAt: isoTime(space.createdAt),
  updatedAt: isoTime(space.updatedAt),
  a2a: `${base}spaces/${space.name}/`,
});

const listQuery = z.object(pageFields).strict();

/** Spaces and their members over REST (a space's intents are the intent kind's read). Reads need no token. */
export function spaceRoutes(app: FastifyInstance, hub: Hub, options: { publicUrl: URL | undefined }): void {
  const config = { door: 'rest' as const };
  const base = (request: FastifyRequest) => baseUrl(options.publicUrl, request);
  const name = (request: FastifyRequest) => (request.params as { name: string }).name;

  app.post('/api/spaces', { config }, async (request, reply) => {
    const space = await hub.spaces.create(await callerOf(hub, request), request.body ?? {});
    return reply.code(201).send(shown(space, base(request)));
  });

  app.get('/api/spaces', { config }, async (request) => {
    const page = await hub.spaces.list(parseWith(listQuery, request.query));
    return Object.assign({}, page, { data: page.data.map((s) => shown(s, base(request))) });
  });

  app.get('/api/spaces/:name', { config }, async (request) => {
    const space = await hub.spaces.get(name(request));
    return Object.assign(shown(space, base(request)), {
      members: space.members.map((m) => ({ handle: m.handle, role: m.role, addedAt: isoTime(m.addedAt) })),
    });
  });

  app.patch('/api/spaces/:name', { config }, async (request) =>
    shown(await hub.spaces.update(await callerOf(hub, request), name(request), request.body ?? {}), base(request)),
  );

  app.put('/api/spaces/:name/members/:handle', { config }, async (request) => {
    const { handle } = request.params as { handle: string };
    const member = await hub.spaces.setMember(await callerOf(hub, request), name(request), handle, request.body ?? {});
    return { handle: member.handle, role: member.role, addedAt: isoTime(member.addedAt) };
  });

  app.delete('/api/spaces/:name/members/:handle', { config }, async (request, reply) => {
    const { handle } = request.params as { handle: string };
    await hub.spaces.removeMember(await callerOf(hub, request), name(request), handle);
    return reply.code(204).send();
  });
}
