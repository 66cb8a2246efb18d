import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../a2a/validate.js';
import { pageFields } from './page-query.js';
import type { Hub } from '../../hub/hub.js';
import type { AgentRecord, TokenRecord } from '../../store/store.js';
import { baseUrl, callerOf } from '../http/context.js';
import { isSearch, searchFields } from '../../identity/profile.js';
import { publicProfile } from '../../identity/profile-view.js';
import { inboxRoutes, type InboxRouteOptions } from './inbox.js';
import { isoTime } from '../../wire/iso-time.js';

const profile = (agent: AgentRecord, base: string) => publicProfile(agent, base);

/** What a list of agents shows of each: the public profile, without the endpoint. */
const listed = (agent: AgentRecord, base: string) => publicProfile(agent, base, { endpoint: false });

/** A page of agents; with q, skill or tag, a directory search (hub/directory.ts says how it matches). */
const agentsQuery = z.object({ ...pageFields, ...searchFields }).strict();

/** A token as its holder's list shows it: never the secret, nor its hash. */
export const tokenView = (t: TokenRecord) => ({
  id: t.id,
  createdAt: isoTime(t.createdAt),
  ...(t.revokedAt ? { revokedAt: isoTime(t.revokedAt) } : {}),
});

/** Agents and tokens over REST. A token appears in exactly two answers: registration and rotation. */
export function agentRoutes(
  app: FastifyInstance,
  hub: Hub,
  options: { publicUrl: URL | undefined } & InboxRouteOptions,
): void {
  const config = { door: 'rest' as const };
  inboxRoutes(app, hub, options); // an agent's own live inbox (registered here: app.ts lists the doors' route groups)
  const base = (request: Parameters<typeof baseUrl>[1]) => baseUrl(options.publicUrl, request);
  // The agent a route names, by its handle or its public id (identity/agent-id.ts).
  const handleOf = (request: { params: unknown }) =>
    hub.identity.handleOf((request.params as { handle: string }).handle);

  app.post('/api/agents', { config }, async (request, reply) => {
    const caller = await callerOf(hub, request);
    const { agent, token } = await hub.identity.register(caller, request.body ?? {}, request.ip);
    return reply
      .code(201)
      .header('cache-control', 'no-store')
      .send(Object.assign(profile(agent, base(request)), { token }));
  });

  app.get('/api/agents', { config }, async (request) => {
    await callerOf(hub, request);
    const { cursor: token, limit, ...filters } = parseWith(agentsQuery, request.query);
    const page = { cursor: token, limit };
    const { agents, hasMore, cursor } = isSearch(filters)
      ? await hub.identity.search(filters, page)
      : await hub.identity.list(page);
    return { data: agents.map((a) => listed(a, base(request))), hasMore, ...(cursor ? { cursor } : {}) };
  });

  app.get('/api/agents/:handle', { config }, async (request) => {
    await callerOf(hub, request);
    return profile(await hub.identity.agent(await handleOf(request)), base(request));
  });

  // The agent's profile: name, description, declared skills and tags (identity/profile.ts).
  app.patch('/api/agents/:handle', { config }, async (request) => {
    const caller = await callerOf(hub, request);
    return profile(
      await hub.identity.updateProfile(caller, await handleOf(request), request.body ?? {}),
      base(request),
    );
  });

  app.post('/api/agents/:handle/token', { config }, async (request, reply) => {
    const token = await hub.identity.rotate(await callerOf(hub, request), await handleOf(request));
    return reply.header('cache-control', 'no-store').send({ token });
  });

  app.get('/api/agents/:handle/tokens', { config }, async (request) => {
    const tokens = await hub.identity.tokens(await callerOf(hub, request), await handleOf(request));
    return { tokens: tokens.map(tokenView) };
  });

  app.delete('/api/agents/:handle/tokens/:tokenId', { config }, async (request, reply) => {
    const { tokenId } = request.params as { tokenId: string };
    await hub.identity.revoke(await callerOf(hub, request), await handleOf(request), tokenId);
    return reply.code(204).send();
  });

  // Proving control of the agent's own endpoint, and forwarding new tasks to it.
  app.post('/api/agents/:handle/endpoint/challenge', { config }, async (request) =>
    hub.endpoints.challenge(await callerOf(hub, request), await handleOf(request)),
  );
  app.post('/api/agents/:handle/endpoint/verify', { config }, async (request) =>
    hub.endpoints.verify(await callerOf(hub, request), await handleOf(request)),
  );
  app.get('/api/agents/:handle/forwarding', { config }, async (request) =>
    hub.endpoints.forwarding(await callerOf(hub, request), await handleOf(request)),
  );
  app.put('/api/agents/:handle/forwarding', { config }, async (request) =>
    hub.endpoints.setForwarding(await callerOf(hub, request), await handleOf(request), request.body ?? {}),
  );

  // Pausing: new direct tasks to the agent are refused until it is resumed (its operator or the admin).
  for (const [action, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    app.post(`/api/agents/:handle/${action}`, { config }, async (request) =>
      profile(
        await hub.identity.setPaused(await callerOf(hub, request), await handleOf(request), paused),
        base(request),
      ),
    );
  }

  app.get('/api/me', { config }, async (request) => {
    const caller = await callerOf(hub, request);
    if (caller.kind === 'operator') return { kind: 'operator', handle: caller.handle, agents: caller.agents };
    if (caller.kind !== 'agent') return { kind: caller.kind };
    return { kind: 'agent', ...profile(await hub.identity.agent(caller.handle), base(request)) };
  });
}
