/**
 * The front door: what the URL the hub prints at start answers. A client that is not a browser
 * gets a small JSON index of where things are (the web door serves a browser its home page at
 * the same `/`); a browser at an agent's base is sent to that agent's page in the feed. `POST /`
 * (the hub's JSON-RPC endpoint) and the A2A bindings under each base are not touched: their
 * clients never ask for HTML first.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { baseUrl } from '../http/context.js';
import { prefersHtml } from '../web/headers.js';
import { feedPath } from '../web/html.js';
import { PACKAGE, VERSION } from '../../version.js';

/** The JSON index at `/`: the hub's name and version, and the URL of each door. */
export interface FrontDoorIndex {
  name: 'Muster';
  description: string;
  version: string;
  links: Record<string, string>;
}

/** Where the docs are read: the package's homepage, or its page on npm (its README, linking the rest). */
const DOCS = PACKAGE.homepage ?? `https://www.npmjs.com/package/${PACKAGE.name}`;

export function frontDoorIndex(base: string): FrontDoorIndex {
  return {
    name: 'Muster',
    description: PACKAGE.description,
    version: VERSION,
    links: {
      a2a: base,
      agentCard: `${base}.well-known/agent-card.json`,
      catalog: `${base}.well-known/ai-catalog.json`,
      health: `${base}health`,
      status: `${base}api/status`,
      agents: `${base}api/agents`,
      mcp: `${base}mcp`,
      feed: `${base}feed/`,
      docs: DOCS,
    },
  };
}

/** What `GET /` answers a client that is not a browser (the web door calls it; it owns the route for browsers). */
export const frontDoor =
  (publicUrl: URL | undefined) =>
  async (request: FastifyRequest, reply: FastifyReply): Promise<FrontDoorIndex> => {
    reply.header('cache-control', 'no-cache').header('vary', 'Accept');
    return frontDoorIndex(baseUrl(publicUrl, request));
  };

/** A browser at an agent's base (`/agents/{handle}/`, as the hub prints it) goes to the agent's feed page. */
export function frontDoorRoutes(app: FastifyInstance): void {
  const toFeed = async (request: FastifyRequest, reply: FastifyReply) => {
    // Anyone else gets the answer it got before: the base's HTTP+JSON binding has no such route.
    if (!prefersHtml(request.headers.accept)) return reply.callNotFound();
    return reply.redirect(feedPath('agents', (request.params as { handle: string }).handle), 302);
  };
  app.get('/agents/:handle', { config: { door: 'rest' } }, toFeed);
  app.get('/agents/:handle/', { config: { door: 'rest' } }, toFeed);
}
