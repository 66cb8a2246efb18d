import { HubError } from '../errors/hub-error.js';
import { isAgentId } from './agent-id.js';

/**
 * Handles no agent may register: names that read as the hub itself or its operators, path
 * segments of the hub's own routes, and words that look like missing values. Agents registered
 * before a name was reserved keep working: only registration checks this.
 */
const RESERVED = new Set([
  // the hub and the people who run it
  'admin',
  'administrator',
  'muster',
  'root',
  'system',
  'operator',
  'operators',
  'hub',
  'staff',
  'support',
  'security',
  'anonymous',
  'everyone',
  // path segments of the hub's routes, and of routes it keeps free for surfaces it may add
  'api',
  'agents',
  'spaces',
  'memory',
  'feed',
  'health',
  'metrics',
  'mcp',
  'well-known',
  'jwks',
  'me',
  'inbox',
  'sent',
  'tasks',
  'calls',
  'reviews',
  'login',
  'logout',
  'register',
  'settings',
  'config',
  'docs',
  'static',
  'www',
  // values that are not names
  'null',
  'undefined',
  'none',
  'nil',
  'true',
  'false',
]);

const isReservedHandle = (handle: string): boolean => RESERVED.has(handle);

/** Refuses a reserved handle, for an agent's registration and an operator's creation alike (one namespace). */
export function refuseReservedHandle(handle: string): void {
  if (isAgentId(handle)) {
    throw new HubError('HANDLE_RESERVED', `The handle '${handle}' has the form of an agent id`, {
      fields: [{ field: 'handle', description: 'has the form of a UUID, which routes read as an agent id' }],
      hint: 'Pick a handle that is not a UUID',
    });
  }
  if (!isReservedHandle(handle)) return;
  throw new HubError('HANDLE_RESERVED', `The handle '${handle}' is reserved for the hub's own use`, {
    fields: [{ field: 'handle', description: 'is reserved: it names the hub, its operators or one of its routes' }],
    hint: `Pick another handle, such as '${handle}-agent'`,
  });
}
