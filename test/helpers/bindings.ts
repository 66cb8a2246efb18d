/** The official @a2a-js/sdk client over the HTTP+JSON and gRPC bindings, as an agent with a bearer token would use it. */
import { ClientFactory, RestTransportFactory, type Client, type ClientFactoryOptions } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';

/** An HTTP+JSON client for a base: the card names the binding's URL; the token rides on every request. */
export function restClient(base: string, token?: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  // Only this binding's transport: the card lists JSON-RPC first, which the client would otherwise pick.
  return new ClientFactory({ transports: [new RestTransportFactory({ fetchImpl })] }).createFromUrl(base);
}

/** A gRPC client for a base: the card (read over HTTP) names the gRPC address and the base's tenant; the token rides in `authorization` metadata. */
export function grpcClient(base: string, token?: string): Promise<Client> {
  const options: ClientFactoryOptions = {
    transports: [new GrpcTransportFactory()],
    clientConfig: {
      interceptors: token
        ? [
            {
              before: async (args: { options?: { serviceParameters?: Record<string, string> } }) => {
                args.options = {
                  ...args.options,
                  serviceParameters: { ...args.options?.serviceParameters, authorization: `Bearer ${token}` },
                };
              },
              after: async () => {},
            },
          ]
        : [],
    },
  };
  return new ClientFactory(options).createFromUrl(base);
}

/** Collects a stream's events as ProtoJSON-like summaries until it ends (or `max` events). */
export async function collect<T>(stream: AsyncIterable<T>, max = 50): Promise<T[]> {
  const out: T[] = [];
  for await (const event of stream) {
    out.push(event);
    if (out.length >= max) break;
  }
  return out;
}
