/**
 * Connections that would hold a stopping hub open. Node counts a connection that has not sent a
 * request yet neither idle nor busy, so `server.close()` (and Fastify's `forceCloseConnections:
 * 'idle'`) waits for it forever: one silent client could hold the hub open. As the hub stops, those
 * that have sent no byte are cut, and so is any connection that arrives after; one in the middle of
 * its headers is left to finish (it is answered 503, app.ts). A connection busy with an answer when
 * the stop began (a task wait or a stream the stop ends) goes idle only after Fastify closed the
 * idle ones, and would then stay open for the whole keep-alive timeout: from the stop on, an
 * answered connection stays open about a second (node adds one to the keep-alive time).
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
      server.keepAliveTimeout = 1; // node reads it as each answer ends, for that connection's idle time
      for (const socket of unused) if (socket.bytesRead === 0) socket.destroy();
      unused.clear();
    },
  };
}
