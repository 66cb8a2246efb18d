/**
 * The door's resources: a task, a board, a space, read through the hub's REST door as the
 * connection's caller, so the view decides what each reader sees. Each is subscribable
 * (subscriptions.ts).
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { UsageError } from '../../cli/client/errors.js';
import { path, request, type Target } from '../../cli/client/http.js';

const TEMPLATES = {
  task: { uri: 'muster://tasks/{id}', title: 'A task', description: 'A task as you may see it (state, history, artifacts). Subscribe to hear when it changes.', read: (id: string) => path('api', 'tasks', id) },
  board: { uri: 'muster://boards/{id}', title: 'A memory board', description: 'A memory board file as you may see it. Subscribe to hear when it changes.', read: (id: string) => path('api', 'boards', id) },
  space: { uri: 'muster://spaces/{name}', title: 'A space', description: 'A space and its members. Subscribe to hear when it changes.', read: (name: string) => path('api', 'spaces', name) },
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
  if (!match) throw new UsageError(`'${uri}' is not a Muster resource`, 'Use muster://tasks/{id}, muster://boards/{id} or muster://spaces/{name}');
  return { kind: PLURAL[match[1]!]!, key: decodeURIComponent(match[2]!) };
}

/** The resource as the caller may see it, through the REST door. */
export const readResource = (target: Target, { kind, key }: ResourceRef, signal: AbortSignal): Promise<unknown> => request(target, TEMPLATES[kind].read(key), { signal });

export function registerResources(server: McpServer, target: Target): void {
  for (const [kind, template] of Object.entries(TEMPLATES) as [ResourceKind, (typeof TEMPLATES)[ResourceKind]][]) {
    server.registerResource(kind, new ResourceTemplate(template.uri, { list: undefined }), { title: template.title, description: template.description, mimeType: 'application/json' }, async (uri, _variables, ctx) => {
      const body = await readResource(target, resourceOf(uri.href), ctx.mcpReq.signal);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(body, null, 2) }] };
    });
  }
}
