/** A test's own HTTP server (an agent's endpoint, say) on a free port of 127.0.0.1. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';

export async function listenLocally(
  app: RequestListener & { listen(port: number, host: string, ready: () => void): Server },
) {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
