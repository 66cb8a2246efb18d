/**
 * The web feed door: server-rendered pages of everything public under /feed/, the home page at `/`
 * for a browser (any other client's `/` is the front door's JSON index), the feed's own script and
 * stylesheet, and its live events. Every page reads through the hub's services as an anonymous
 * caller (reads.ts); the signed-in views are filled by the page script from the REST API.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseWith } from '../../a2a/validate.js';
import type { StreamSettings } from '../../config/index.js';
import { HubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import { asHubError, errorHeaders, restStatus } from '../http/errors.js';
import type { OpenStreams } from '../http/open-streams.js';
import { ASSETS } from './assets/index.js';
import { feedEventRoutes } from './events.js';
import { prefersHtml, SAFETY_HEADERS } from './headers.js';
import { html } from './html.js';
import { page } from './layout.js';
import { agentPage, agentsPage, directoryText } from './pages/agents.js';
import { DOOR_LISTS, homePage } from './pages/home.js';
import type { Shown } from './pages/shown.js';
import { inboxPage, inboxTaskPage, signinPage } from './pages/signed-in.js';
import { statusPage } from './pages/status.js';
import { anyTaskPage } from './pages/tasks.js';
import { FeedReads } from './reads.js';
import { FeedKinds, type FeedKind } from './feed-kind.js';
import type { NavLink } from './layout.js';

const pageQuery = z.object({ page: z.string().min(1).max(2000).optional() });

export interface WebOptions {
  /** The kinds' parts of the feed (src/kinds/<kind>/feed.ts), in the order of their sections. */
  kinds: readonly FeedKind[];
  open: OpenStreams;
  streams: StreamSettings;
  logError: (error: unknown, request: FastifyRequest) => void;
  /** What `/` answers a client that is not a browser: the front door's JSON index (doors/rest/front-door.ts). */
  index: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

const send = (reply: FastifyReply, status: number, shown: Shown, nav: readonly NavLink[]) =>
  reply
    .code(status)
    .headers(SAFETY_HEADERS)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page(shown.title, shown.main, { ...shown, nav }).text);

/** A refusal as a page: what went wrong, in the hub's words, and where to go instead. */
function errorPage(error: HubError): Shown {
  const missing = error.code.endsWith('NOT_FOUND');
  return {
    title: missing ? 'Not found' : 'Something went wrong',
    main: html`<h1>${missing ? 'Not found' : 'Something went wrong'}</h1>
      <p>${error.code === 'INTERNAL' ? 'The hub could not show this page.' : error.message}</p>
      <p><a href="/">Back to the home page</a></p>`,
  };
}

export function webRoutes(app: FastifyInstance, hub: Hub, options: WebOptions): void {
  const kinds = new FeedKinds(options.kinds);
  const reads = new FeedReads(hub, kinds);
  const nav: NavLink[] = [...kinds.sections, ...DOOR_LISTS, { path: 'inbox', label: 'Inbox' }];
  const refused = (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const hubError = asHubError(error);
    if (hubError.code === 'INTERNAL') options.logError(error, request);
    reply.headers(errorHeaders(hubError)); // Retry-After, WWW-Authenticate: as every door sends them
    return send(reply, restStatus(hubError), errorPage(hubError), nav);
  };

  // The home page for a browser. Mounted outside the feed's scope: any other client's GET / gets
  // the front door's JSON index (a bad token still its 401, from the app's hook).
  app.get('/', async (request, reply) => {
    if (!prefersHtml(request.headers.accept)) return options.index(request, reply);
    return homePage(reads).then(
      (shown) => send(reply, 200, shown, nav),
      (error: unknown) => refused(error, request, reply),
    );
  });

  app.register(async (scope) => {
    scope.setErrorHandler(async (error, request, reply) => refused(error, request, reply));
    const param = (request: FastifyRequest, name: string) => (request.params as Record<string, string>)[name]!;
    /** A list's page: its cursor (`?page=`), as the hub gave it in the link to it; other query fields are ignored. */
    const at = (request: FastifyRequest) => parseWith(pageQuery, request.query ?? {}).page;
    const pages: [string, (request: FastifyRequest) => Shown | Promise<Shown>][] = [
      ['/feed', () => homePage(reads)],
      ['/feed/', () => homePage(reads)],
      ['/feed/tasks/:id', (r) => anyTaskPage(reads, param(r, 'id'))],
      ...kinds.sections.flatMap((s): [string, (request: FastifyRequest) => Promise<Shown>][] => [
        [`/feed/${s.path}`, (r) => s.list(reads, at(r))],
        [
          `/feed/${s.path}/:key`,
          (r) => (s.item ? s.item(reads, param(r, 'key')) : anyTaskPage(reads, param(r, 'key'))),
        ],
      ]),
      ['/feed/agents', (r) => agentsPage(reads, at(r), directoryText(r.query))],
      ['/feed/agents/:handle', (r) => agentPage(reads, param(r, 'handle'))],
      ['/feed/status', () => statusPage(hub)],
      ['/feed/signin', () => signinPage()],
      ['/feed/inbox', () => inboxPage(kinds)],
      ['/feed/inbox/tasks/:id', (r) => inboxTaskPage(kinds, param(r, 'id'))],
    ];
    for (const [path, render] of pages)
      scope.get(path, async (request, reply) => send(reply, 200, await render(request), nav));

    scope.get('/feed/assets/:name', async (request, reply) => {
      const asset = Object.hasOwn(ASSETS, param(request, 'name')) ? ASSETS[param(request, 'name')] : undefined;
      if (!asset) throw new HubError('NOT_FOUND', `No asset ${param(request, 'name')}`);
      return reply
        .headers(SAFETY_HEADERS)
        .header('cache-control', 'public, max-age=300')
        .type(asset.type)
        .send(asset.body);
    });

    feedEventRoutes(scope, hub, options);
    scope.get('/feed/*', async (request) => {
      throw new HubError('NOT_FOUND', `There is no page ${request.url.split('?')[0]}`);
    });
  });
}
