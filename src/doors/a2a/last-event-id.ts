import type { FastifyRequest } from 'fastify';

/** SSE's Last-Event-ID travels as a header, on a JSON-RPC POST as on any SSE request of either binding. */
export function lastEventIdOf(request: FastifyRequest): { lastEventId?: number } {
  const value = Number(request.headers['last-event-id']);
  return Number.isInteger(value) && value >= 0 ? { lastEventId: value } : {};
}
