/**
 * Cairn's card and JSON-RPC endpoint: the card at .well-known/agent-card.json, the endpoint at
 * the base and at api/a2a (both Cairn's paths, the host root having become /cairn/). Cairn's
 * methods are 1.0 only: a call without `A2A-Version: 1.0` is refused with -32009 before anything else.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isJsonObject } from '../../a2a/types.js';
import type { JsonRpcId } from '../../doors/a2a/jsonrpc.js';
import { jsonRpcHandler } from '../../doors/a2a/rpc-route.js';
import { requestedVersion } from '../../doors/a2a/version.js';
import { baseUrl } from '../../doors/http/context.js';
import { HubError } from '../../errors/hub-error.js';
import type { Hub } from '../../hub/hub.js';
import type { DialectOptions } from '../dialect.js';
import { cairnCard } from './card.js';
import { CAIRN_DISPATCH } from './methods.js';

const HUB_DOOR = { kind: 'hub' } as const;

const speaks10 = (version: string | undefined): boolean =>
  version !== undefined && version.trim().split('.').slice(0, 2).join('.') === '1.0';

const idOf = (body: unknown): JsonRpcId =>
  isJsonObject(body) && (typeof body['id'] === 'string' || typeof body['id'] === 'number') ? body['id'] : null;

export function rpcRoutes(scope: FastifyInstance, hub: Hub, options: DialectOptions): void {
  scope.get('/.well-known/agent-card.json', { config: { door: 'rest' } }, async (request, reply) =>
    reply.header('cache-control', 'public, max-age=60').send(cairnCard(baseUrl(options.publicUrl, request))),
  );
  const rpc = jsonRpcHandler(hub, { ...options, door: async () => HUB_DOOR, dispatch: CAIRN_DISPATCH });
  const endpoint = async (request: FastifyRequest, reply: FastifyReply) => {
    const version = requestedVersion(request);
    if (speaks10(version)) return rpc(request, reply);
    const refused = new HubError(
      'VERSION_NOT_SUPPORTED',
      version === undefined ? 'A2A-Version is missing' : `A2A-Version '${version}' is not supported here`,
      { hint: 'Send the header A2A-Version: 1.0 (the SDK client does)' },
    );
    const answer = CAIRN_DISPATCH.errorAnswer(idOf(request.body), refused);
    return reply.code(answer.status).type('application/json').send(answer.body);
  };
  for (const path of ['/', '/api/a2a']) scope.post(path, { config: { door: 'jsonrpc' } }, endpoint);
}
