/**
 * The door's resources: a task, a board, a space, read through the hub's REST door as the
 * connection's caller, so the view decides what each reader sees.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { path, request, type Target } from '../../cli/client/http.js';

/** Each resource template: its URI, what it is, and the REST read behind it. */
export const RESOURCES = [
  { name: 'task', uri: 'muster://tasks/{id}', title: 'A task', description: 'A task as you may see it (state, history, artifacts). Subscribe to hear when it changes.', read: (id: string) => path('api', 'tasks', id) },
  { name: 'board', uri: 'muster://boards/{id}', title: 'A memory board', description: 'A memory board file as you may see it. Subscribe to hear when it changes.', read: (id: string) => path('api', 'boards', id) },
  { name: 'space', uri: 'muster://spaces/{name}', title: 'A space', description: 'A space and its members. Subscribe to hear when its intents change.', read: (name: string) => path('api', 'spaces', name) },
] as const;

export function registerResources(server: McpServer, target: Target): void {
  for (const resource of RESOURCES) {
    server.registerResource(resource.name, new ResourceTemplate(resource.uri, { list: undefined }), { title: resource.title, description: resource.description, mimeType: 'application/json' }, async (uri, variables, ctx) => {
      const key = String(Object.values(variables)[0] ?? '');
      const body = await request(target, resource.read(key), { signal: ctx.mcpReq.signal });
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(body, null, 2) }] };
    });
  }
}
