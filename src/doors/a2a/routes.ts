import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Hub } from '../../hub/hub.js';
import type { Door } from '../../hub/kind.js';
import { baseUrl, claimedCallerOf } from '../http/context.js';
import { errorHeaders } from '../http/errors.js';
import { agentCard, hubCard, kindBaseCard, legacyCard, spaceCard } from './card.js';
import { CARD_PATH } from '../../a2a/card-path.js';
import { CardSigner } from './card-signing.js';
import type { Signer } from '../../delivery/signing.js';
import { JWKS_PATH } from '../rest/keys.js';
import { answer } from './jsonrpc.js';
import { HubError } from '../../errors/hub-error.js';
import { callerName } from '../../identity/caller.js';
import { writeEventStream } from './sse.js';
import type { HubMetrics } from '../../observability/metrics.js';
import type { StreamSettings } from '../../config/index.js';

const CARD = CARD_PATH;

/** Counts each caller's open streams on this process. */
class StreamSlots {
  private readonly open = new Map<string, number>();
  constructor(private readonly limit: number) {}

  take(who: string): () => void {
    const held = this.open.get(who) ?? 0;
    if (held >= this.limit) {
      throw new HubError('RATE_LIMITED', `At most ${this.limit} open streams per caller`, { hint: 'Close a stream first, or poll with ListTasks' });
    }
    this.open.set(who, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(who) ?? 1) - 1;
      if (left > 0) this.open.set(who, left);
      else this.open.delete(who);
    };
  }
}

/** SSE's Last-Event-ID travels as a header, on the JSON-RPC POST as on any SSE request. */
function lastEventId(request: FastifyRequest): { lastEventId?: number } {
  const value = Number(request.headers['last-event-id']);
  return Number.isInteger(value) && value >= 0 ? { lastEventId: value } : {};
}

/** A card as served: 1.0 unless the client asks for 0.3 (a header-less fetch gets 1.0), signed, with an ETag over the signed body. */
async function sendCard(request: FastifyRequest, reply: FastifyReply, cards: CardSigner, hubBase: string, card: ReturnType<typeof hubCard>) {
  const legacy = String(request.headers['a2a-version'] ?? '').startsWith('0.3');
  const { body, etag } = await cards.sign(legacy ? legacyCard(card) : card, `${hubBase}${JWKS_PATH}`);
  reply.header('vary', 'A2A-Version');
  reply.header('cache-control', 'public, max-age=60').header('etag', etag).type('application/json');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.send(body);
}

/** The A2A door: the hub's base, each agent's, each space's and each kind's own, with their cards and JSON-RPC endpoints. */
export function a2aRoutes(
  app: FastifyInstance,
  hub: Hub,
  options: {
    publicUrl: URL | undefined;
    streams: StreamSettings;
    logError: (error: unknown, request: FastifyRequest) => void;
    metrics: Pick<HubMetrics, 'streamOpened' | 'streamClosed'>;
    signer: Signer;
  },
): void {
  const { publicUrl, logError, metrics } = options;
  const cards = new CardSigner(options.signer);
  // Open event streams end when the hub stops; otherwise a shutdown would wait on them forever.
  const streams = new Set<AbortController>();
  // A stream lives no longer than the token that opened it: rotation or revocation ends the agent's streams.
  const streamsOf = new Map<string, Set<AbortController>>();
  hub.identity.onTokensChanged((handle) => streamsOf.get(handle)?.forEach((s) => s.abort()));
  const slots = new StreamSlots(options.streams.maxPerCaller);
  app.addHook('preClose', async () => streams.forEach((s) => s.abort()));
  const rpc = (door: (request: FastifyRequest) => Promise<Door>) => async (request: FastifyRequest, reply: FastifyReply) => {
    const version = (request.headers['a2a-version'] as string | undefined) ?? (request.query as Record<string, string | undefined>)['A2A-Version'];
    // Only a stream or a blocking send needs an end signal: made on first use, so plain calls do
    // not pay for one. It fires when the answer's connection closes (the client left, or the answer ended).
    let controller: AbortController | undefined;
    const ending = () => {
      if (controller) return controller;
      const made = (controller = new AbortController());
      // Asked for late (a blocking send asks after its write), the connection may have closed already.
      if (reply.raw.closed) made.abort();
      else reply.raw.once('close', () => made.abort());
      return made;
    };
    // The caller's token is checked by answer(), before the method runs or in the method's own statement.
    const caller = await claimedCallerOf(hub, request);
    const who = callerName(caller);
    const base = baseUrl(publicUrl, request);
    const result = await answer(hub, request.body, version, async () => ({ caller, door: await door(request), hubUrl: base }), {
      base,
      get signal() {
        return ending().signal;
      },
      ...lastEventId(request),
      reserveStream: () => slots.take(who),
    });
    if (result.stream) {
      const { events } = result.stream;
      const abort = ending();
      reply.hijack();
      streams.add(abort);
      metrics.streamOpened();
      const own = streamsOf.get(who) ?? new Set<AbortController>();
      streamsOf.set(who, own.add(abort));
      return writeEventStream(reply.raw, result.stream.id, events, abort, options.streams).finally(() => {
        streams.delete(abort);
        metrics.streamClosed();
        own.delete(abort);
        if (own.size === 0) streamsOf.delete(who);
        events.release();
      });
    }
    if (result.error) reply.headers(errorHeaders(result.error));
    if (result.error?.code === 'INTERNAL') logError(result.cause, request);
    if (result.body === undefined) return reply.code(result.status).send();
    return reply.code(result.status).type('application/json').send(result.body);
  };
  const agentDoor = async (request: FastifyRequest): Promise<Door> => {
    const { handle } = request.params as { handle: string };
    await hub.identity.requireAgent(handle);
    return { kind: 'agent', handle };
  };
  const spaceDoor = async (request: FastifyRequest): Promise<Door> => {
    const { name } = request.params as { name: string };
    await hub.spaces.require(name);
    return { kind: 'space', name };
  };
  const config = { door: 'jsonrpc' as const };
  const skills = (door: Door['kind'], subject = '') => hub.kinds.cardSkills(door, subject);

  const card = (request: FastifyRequest, reply: FastifyReply, make: (hubBase: string) => ReturnType<typeof hubCard>) => {
    const hubBase = baseUrl(publicUrl, request);
    return sendCard(request, reply, cards, hubBase, make(hubBase));
  };

  app.get(`/${CARD}`, (request, reply) => card(request, reply, (hubBase) => hubCard(hubBase, skills('hub'))));
  app.post('/', { config }, rpc(async () => ({ kind: 'hub' })));

  app.get(`/agents/:handle/${CARD}`, { config: { door: 'rest' } }, async (request, reply) => {
    const { handle } = request.params as { handle: string };
    const agent = await hub.identity.agent(handle);
    return card(request, reply, (hubBase) => agentCard(hubBase, agent, skills('agent', handle)));
  });
  app.post('/agents/:handle/', { config }, rpc(agentDoor));
  app.post('/agents/:handle', { config }, rpc(agentDoor));

  app.get(`/spaces/:name/${CARD}`, { config: { door: 'rest' } }, async (request, reply) => {
    const { name } = request.params as { name: string };
    const space = await hub.spaces.require(name);
    return card(request, reply, (hubBase) => spaceCard(hubBase, space, skills('space', name)));
  });
  app.post('/spaces/:name/', { config }, rpc(spaceDoor));
  app.post('/spaces/:name', { config }, rpc(spaceDoor));

  // The bases kinds bring of their own (the memory base), each with its card.
  for (const base of hub.kinds.bases) {
    const door = rpc(async () => ({ kind: 'base', name: base.name }));
    app.get(`/${base.name}/${CARD}`, (request, reply) => card(request, reply, (hubBase) => kindBaseCard(hubBase, base, skills('base', base.name))));
    app.post(`/${base.name}/`, { config }, door);
    app.post(`/${base.name}`, { config }, door);
  }
}
