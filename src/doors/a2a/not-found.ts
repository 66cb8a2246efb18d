/**
 * A path that matches no route but lies under an A2A base (an agent's, a space's, a kind's, or
 * the hub's own HTTP+JSON paths) is answered in the HTTP+JSON binding's error shape, a
 * google.rpc.Status, as that binding's client reads it; any other unknown path keeps the REST shape.
 */
import { HubError } from '../../errors/hub-error.js';
import { statusBody } from './rest-binding-errors.js';

/** The hub base's own HTTP+JSON paths; the hub base is `/`, so only these mark a path as under it. */
const HUB_BINDING_PATH = /^\/(tasks(\/|$)|message:|extendedAgentCard$)/;

/** Whether the path (query and doubled slashes aside) lies under an A2A base the hub serves. */
export function underA2aBase(url: string, kindBases: readonly { name: string }[]): boolean {
  const path = url.split('?')[0]!.replace(/\/{2,}/g, '/');
  const [, first, second] = path.split('/');
  if ((first === 'agents' || first === 'spaces') && second) return true;
  if (kindBases.some((base) => base.name === first)) return true;
  return HUB_BINDING_PATH.test(path);
}

/** No such route under a base, with the binding's paths as the hint. */
export function bindingNoRoute(method: string, url: string): HubError {
  return new HubError('ROUTE_NOT_FOUND', `No route ${method} ${url.split('?')[0]!}`, {
    hint: 'Under an A2A base: JSON-RPC POSTs to the base itself; HTTP+JSON at message:send, message:stream, tasks, tasks/{id}, tasks/{id}:cancel, tasks/{id}:subscribe, tasks/{id}/pushNotificationConfigs[/{configId}], extendedAgentCard; the card at .well-known/agent-card.json',
  });
}

/** The 404 of a path under a base, in the HTTP+JSON binding's shape. */
export const a2aNoRoute = (method: string, url: string) => statusBody(bindingNoRoute(method, url));
