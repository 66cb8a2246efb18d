/**
 * Connections that have not sent a request yet. Node counts such a connection neither idle nor
 * busy, so `server.close()` (and Fastify's `forceCloseConnections: 'idle'`) waits for it forever:
 * one silent client could hold a stopping hub open. As the hub stops, those that have sent no byte
 * are cut, and so is any connection that arrives after; one in the middle of its headers is left
 * to finish (it is answered 503, app.ts).
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export function cutUnusedConnectionsOnStop(server: Server): { stop(): void } {
  const unused = new Set<Socket>();
  let stopping = false;
  server.on('connection', (socket: Socket) => {
    if (stopping) return void socket.destroy();
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  server.on('request', (request: { socket: Socket }) => unused.delete(request.socket));
  return {
    stop() {
      stopping = true;
      for (const socket of unused) if (socket.bytesRead === 0) socket.destroy();
      unused.clear();
    },
  };
}
