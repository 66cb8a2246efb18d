/**
 * The door's resources: a task, a board, a space, read through the hub's REST door as the
 * connection's caller, so the view decides what each reader sees. Each is subscribable
 * (subscriptions.ts).
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { UsageError } from '../client/errors.js';
import { path, request, type Target } from '../client/http.js';

/** The most open intents a space resource shows (the latest updated): the intents route's largest page. */
const SPACE_INTENTS = 50;

/** A read as the caller, ended by the target's signal (the MCP request's, or a subscription's). */
type Read = (target: Target, key: string) => Promise<unknown>;
const readPath =
  (...segments: string[]): Read =>
  (target, key) =>
    request(target, path(...segments, key));

/** A space with its open intents, so a subscriber hears of an intent declared, claimed or ended in it. */
const readSpace: Read = async (target, name) => {
  const [space, intents] = await Promise.all([
    request(target, path('api', 'spaces', name)),
    request(target, `${path('api', 'spaces', name)}/intents`, { query: { state: 'open', limit: SPACE_INTENTS } }),
  ]);
  return { ...(space as object), openIntents: (intents as { data: unknown[] }).data };
};

const TEMPLATES = {
  task: {
    uri: 'muster://tasks/{id}',
    title: 'A task',
    description: 'A task as you may see it (state, history, artifacts). Subscribe to hear when it changes.',
    read: readPath('api', 'tasks'),
  },
  board: {
    uri: 'muster://boards/{id}',
    title: 'A memory board',
    description: 'A memory board file as you may see it. Subscribe to hear when it changes.',
    read: readPath('api', 'boards'),
  },
  space: {
    uri: 'muster://spaces/{name}',
    title: 'A space',
    description: `A space, its members and its open intents (the ${SPACE_INTENTS} latest updated). Subscribe to hear when an intent is declared, claimed or ends there.`,
    read: readSpace,
  },
} as const;

export type ResourceKind = keyof typeof TEMPLATES;

/** One resource named: its kind and its id (or name). */
export interface ResourceRef {
  kind: ResourceKind;
  key: string;
}

const PLURAL: Record<string, ResourceKind> = { tasks: 'task', boards: 'board', spaces: 'space' };

/** The resource a `muster://` URI names; a usage error for any other URI. */
export function resourceOf(uri: string): ResourceRef {
  const match = /^muster:\/\/(tasks|boards|spaces)\/([^/?#]+)$/.exec(uri);
  if (!match)
    throw new UsageError(
      `'${uri}' is not a Muster resource`,
      'Use muster://tasks/{id}, muster://boards/{id} or muster://spaces/{name}',
    );
  return { kind: PLURAL[match[1]!]!, key: decodeURIComponent(match[2]!) };
}

/** The resource as the caller may see it, through the REST door, until `signal` ends the read. */
export const readResource = (target: Target, { kind, key }: ResourceRef, signal: AbortSignal): Promise<unknown> =>
  TEMPLATES[kind].read({ ...target, signal }, key);

export function registerResources(server: McpServer, target: Target): void {
  for (const [kind, template] of Object.entries(TEMPLATES) as [ResourceKind, (typeof TEMPLATES)[ResourceKind]][]) {
    server.registerResource(
      kind,
      new ResourceTemplate(template.uri, { list: undefined }),
      { title: template.title, description: template.description, mimeType: 'application/json' },
      async (uri, _variables, ctx) => {
        const body = await readResource(target, resourceOf(uri.href), ctx.mcpReq.signal);
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(body, null, 2) }] };
      },
    );
  }
}
