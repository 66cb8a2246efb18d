/**
 * A hub that is stopping, driven by raw node:net sockets: a request still arriving on an open
 * connection is answered 503 in the hub's error shape, a silent connection does not hold the
 * hub open, and neither does a kept-alive connection whose answer (a task wait's) went out after
 * the stop began. The same on either store: it runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, openStreams, register, sendTask, startTestHub } from './helpers/hub.js';
import { answerOf } from './helpers/http-limits.js';
import { sleep } from './helpers/nodes.js';

describe('a hub that is stopping', () => {
  it("answers a request that still arrives on an open connection 503 UNAVAILABLE in the hub shape, not Fastify's own body", async () => {
    const stopping = await startTestHub();
    try {
      const socket = connect(stopping.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${stopping.port}\r\n`); // the headers are not finished yet
      await sleep(100);
      const closing = stopping.close(); // waits for this connection, which is in the middle of a request
      await sleep(200);
      socket.write('\r\n');
      await closed;
      await closing;
      const answer = answerOf(text);
      expect(answer.status).toBe(503);
      expect(answer.headers['connection']).toBe('close');
      expect(answer.headers['retry-after']).toBe('5');
      expect(answer.body).toEqual({
        error: {
          code: 'UNAVAILABLE',
          status: 503,
          message: 'The hub is stopping',
          hint: expect.any(String),
          retryAfterSeconds: '5',
        },
      });
    } finally {
      await stopping.destroy();
    }
  });

  it('a connection that never sent a byte does not hold the hub open: stopping cuts it', async () => {
    const stopping = await startTestHub();
    try {
      const socket = connect(stopping.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      await stopping.close(); // before the fix, this waited for the silent connection forever
      await closed;
      expect(socket.destroyed).toBe(true);
    } finally {
      await stopping.destroy();
    }
  });

  it('a task wait the stop ends is answered, and its kept-alive connection then closed: it does not hold the hub open', async () => {
    const stopping = await startTestHub();
    try {
      const alice = await register(stopping, 'alice', {}, ADMIN_TOKEN);
      await register(stopping, 'bob', {}, ADMIN_TOKEN);
      const id = await sendTask(stopping, alice, 'bob', 'waited on while the hub stops');
      // A client that keeps its connection alive and never closes it itself (node's global agent would, after 5 s).
      const agent = new Agent({ keepAlive: true });
      const answered = new Promise<{ status: number; body: any; closed: Promise<void> }>((resolve, reject) => {
        const wait = request(`${stopping.url}api/tasks/${id}/wait?timeoutSeconds=30`, {
          agent,
          headers: { authorization: `Bearer ${alice.token}` },
        });
        wait.on('response', (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString('utf8')));
          const closed = new Promise<void>((done) => wait.socket!.once('close', () => done()));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), closed }));
        });
        wait.on('error', reject);
        wait.end();
      });
      await expect.poll(() => openStreams(stopping), { timeout: 5_000 }).toBe(1); // the wait is held
      await stopping.close(); // it waited out the keep-alive timeout (65 s) on PostgreSQL, the answer going out after the stop began
      const { status, body, closed } = await answered;
      expect(status).toBe(200);
      expect(body).toMatchObject({ task: { id }, timedOut: true });
      await closed;
    } finally {
      await stopping.destroy();
    }
  });
});
