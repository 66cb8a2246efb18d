// Clients built the way each SDK's README shows: a ClientFactory that discovers the card from the
// agent's base URL, with the bearer token added by the SDK's own AuthenticationHandler.
import * as c03 from 'sdk03/client';
import * as c12 from 'sdk12/client';

const bearer = (token: string) => ({
  headers: async () => ({ Authorization: `Bearer ${token}` }),
  shouldRetryWithHeaders: async () => undefined,
});

/** @a2a-js/sdk 0.3.14: ClientFactory.createFromUrl(base). */
export async function client03(base: string, token?: string): Promise<c03.Client> {
  if (!token) return new c03.ClientFactory().createFromUrl(base);
  const fetchImpl = c03.createAuthenticatingFetchWithRetry(fetch, bearer(token));
  const factory = new c03.ClientFactory(
    c03.ClientFactoryOptions.createFrom(c03.ClientFactoryOptions.default, {
      transports: [new c03.JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(base);
}

/** @a2a-js/sdk 0.3.14: the older A2AClient.fromCardUrl, with the card URL made from the base. */
export async function a2aClient03(base: string, token: string): Promise<c03.A2AClient> {
  const fetchImpl = c03.createAuthenticatingFetchWithRetry(fetch, bearer(token));
  const { AGENT_CARD_PATH } = await import('sdk03');
  return c03.A2AClient.fromCardUrl(new URL(AGENT_CARD_PATH, base).href, { fetchImpl });
}

/** @a2a-js/sdk 1.2.0: ClientFactory.createFromUrl(base). */
export async function client12(base: string, token?: string): Promise<c12.Client> {
  if (!token) return new c12.ClientFactory().createFromUrl(base);
  const fetchImpl = c12.createAuthenticatingFetchWithRetry(fetch, bearer(token));
  const factory = new c12.ClientFactory(
    c12.ClientFactoryOptions.createFrom(c12.ClientFactoryOptions.default, {
      transports: [new c12.JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(base);
}
