/**
 * Clients that leave a real hub on 127.0.0.1 (raw node:net sockets) mid-body or mid-answer: each
 * is one info line, never an error with a stack; nothing the hub logged here is a warning or an
 * error. The same on either store: it runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Registered } from './helpers/hub.js';
import { eventually, expectQuietLog, limitedHub } from './helpers/http-limits.js';
import { sleep } from './helpers/nodes.js';

const limited = limitedHub();
const { lines, exchange, host } = limited;
let alice: Registered;
beforeAll(() => {
  ({ alice } = limited.parties());
});

describe('clients that leave', () => {
  const ABORT_LINE = 'client closed the connection before the answer';

  it('mid-body (Content-Length or chunked, closed or reset) and mid-answer (a stream): one info line each, no error, no stack', async () => {
    const bodies = {
      length: (id: string) =>
        `POST /agents/bob/ HTTP/1.1\r\n${host()}Content-Type: application/json\r\nAuthorization: Bearer ${alice.token}\r\nContent-Length: 500\r\nX-Request-Id: ${id}\r\n\r\n{"jsonrpc":"2.0",`,
      chunked: (id: string) =>
        `POST /api/agents HTTP/1.1\r\n${host()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nX-Request-Id: ${id}\r\n\r\n5\r\n{"han\r\n`,
    };
    const ids: string[] = [];
    for (const [kind, make] of Object.entries(bodies)) {
      for (const how of ['destroy', 'resetAndDestroy'] as const) {
        const id = `leaves-${kind}-${how}`;
        ids.push(id);
        const conn = await exchange(make(id));
        await sleep(150);
        conn.socket[how]();
      }
    }
    const stream = `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"left-stream","role":"ROLE_USER","parts":[{"text":"bye"}]}}}`;
    const streaming = await exchange(
      `POST /agents/bob/ HTTP/1.1\r\n${host()}Content-Type: application/json\r\nAuthorization: Bearer ${alice.token}\r\nContent-Length: ${stream.length}\r\nX-Request-Id: leaves-stream\r\n\r\n${stream}`,
    );
    ids.push('leaves-stream');
    await eventually('the stream to start', () => (streaming.received().includes('data: ') ? true : undefined));
    streaming.socket.resetAndDestroy();

    for (const id of ids) {
      await eventually(`the line of ${id}`, () => lines.find((l) => l['reqId'] === id));
      const own = lines.filter((l) => l['reqId'] === id);
      expect(own, id).toEqual([expect.objectContaining({ level: 30, msg: ABORT_LINE })]);
      expect(own[0]!['err'], id).toBeUndefined();
      expect(own[0]!['status'], id).toBeUndefined();
    }
  });

  it('nothing in this whole file was logged as a warning or an error, and no line carries a stack', () => {
    // This file's hub writes seven lines: two registrations and the five clients that left.
    expectQuietLog(lines, 5);
  });
});
