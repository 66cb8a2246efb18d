import type { HttpRequest } from '../http/exchange.js';

/** SSE's Last-Event-ID travels as a header, on a JSON-RPC POST as on any SSE request of either binding. */
export function lastEventIdOf(request: HttpRequest): { lastEventId?: number } {
  return lastEventIdFrom(request.headers['last-event-id']);
}

/** A Last-Event-ID as sent (a header, or gRPC metadata of the same name): a task event's seq, or nothing. */
export function lastEventIdFrom(sent: unknown): { lastEventId?: number } {
  const value = Number(sent);
  return typeof sent === 'string' && Number.isInteger(value) && value >= 0 ? { lastEventId: value } : {};
}
