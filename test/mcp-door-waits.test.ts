/**
 * muster_wait_task at the MCP door (issue 15) with the official MCP client, over stdio (a real
 * `muster mcp` child) and over Streamable HTTP (/mcp), on SQLite or PostgreSQL (MUSTER_TEST_PG): it
 * answers when another agent answers (through REST, or from its own A2A endpoint the task was
 * forwarded to), says when nothing changed, and stops waiting at the hub when the client cancels or
 * its session ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardingAgent, startA2AEndpoint } from './helpers/a2a-endpoint.js';
import { ADMIN_TOKEN, openStreams, register, rest, sendTask, type Registered, type TestHub } from './helpers/hub.js';
import { callTool, connectMcp, type McpConnection, type McpTransportName } from './helpers/mcp.js';
import { startDoorHub } from './helpers/mcp-door.js';

describe('the MCP door on one hub', () => {
  let hub: TestHub;
  let alice: Registered, bob: Registered, fwd: Registered;
  /** An agent with its own A2A endpoint (the official SDK's server): a task forwarded to it is answered through the hub. */
  let endpoint: Awaited<ReturnType<typeof startA2AEndpoint>>;
  beforeAll(async () => {
    ({ hub, alice, bob } = await startDoorHub());
    endpoint = await startA2AEndpoint({
      onReceive: (body) => {
        const { taskId } = body.params.message.metadata.muster;
        const answer = {
          state: 'completed',
          message: { parts: [{ text: `done: ${body.params.message.parts[0].text}` }] },
          artifacts: [{ name: 'out', parts: [{ text: 'result' }] }],
        };
        void rest(hub, 'POST', `api/tasks/${taskId}/respond`, { token: fwd.token, body: answer });
      },
    });
    fwd = await forwardingAgent(hub, 'fwd', endpoint, ADMIN_TOKEN);
  });
  afterAll(async () => {
    await endpoint?.close();
    await hub.destroy();
  });

  describe.each<McpTransportName>(['stdio', 'http'])('over %s', (transport) => {
    let agent: McpConnection;
    beforeAll(async () => {
      agent = await connectMcp(transport, hub, alice.token);
    });
    afterAll(async () => {
      await agent?.close();
    });

    it('muster_wait_task answers when the other agent answers the task, and says nothing changed when nothing did', async () => {
      const id = await sendTask(hub, alice, 'bob', `translate ${transport}`);
      const quiet = await callTool(agent.client, 'muster_wait_task', { id, timeoutSeconds: 0 });
      expect(quiet.structured).toMatchObject({ timedOut: true, changed: false, state: 'TASK_STATE_SUBMITTED' });
      const lastSeq = quiet.structured.lastSeq as number;
      expect(lastSeq).toBeGreaterThan(0);

      const waiting = callTool(agent.client, 'muster_wait_task', {
        id,
        afterSeq: lastSeq,
        untilState: 'completed',
        timeoutSeconds: 50,
      });
      await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body: { state: 'working' } });
      await rest(hub, 'POST', `api/tasks/${id}/respond`, {
        token: bob.token,
        body: { state: 'completed', message: { parts: [{ text: 'bonjour' }] } },
      });
      const done = await waiting;
      expect(done.isError).toBe(false);
      expect(done.structured).toMatchObject({
        reached: true,
        changed: true,
        timedOut: false,
        state: 'TASK_STATE_COMPLETED',
      });
      expect(done.structured.lastSeq).toBeGreaterThan(lastSeq);
      expect(done.text).toContain('completed');
      // A task the caller may not see is not found, whatever waits on it.
      const stranger = await register(hub, `carol-${transport}`, {}, ADMIN_TOKEN);
      const outsider = await connectMcp(transport, hub, stranger.token);
      try {
        const refused = await callTool(outsider.client, 'muster_wait_task', { id, timeoutSeconds: 0 });
        expect(refused.structured.error.code).toBe('TASK_NOT_FOUND');
      } finally {
        await outsider.close();
      }
    });

    it('muster_wait_task answers when the target, an agent with its own A2A endpoint, answers the task forwarded to it', async () => {
      const text = `forwarded over ${transport}`;
      const sent = await callTool(agent.client, 'muster_send', { to: 'fwd', text });
      expect(sent.isError).toBe(false);
      const id: string = sent.structured.task.id;
      const done = await callTool(agent.client, 'muster_wait_task', {
        id,
        untilState: 'completed',
        timeoutSeconds: 50,
      });
      expect(done.isError).toBe(false);
      expect(done.structured).toMatchObject({ reached: true, timedOut: false, state: 'TASK_STATE_COMPLETED' });
      expect(done.text).toContain(`done: ${text}`);
      expect(done.structured.task.artifacts).toEqual([
        expect.objectContaining({ name: 'out', parts: [{ text: 'result' }] }),
      ]);
      // it reached the agent over A2A, at the official SDK's server
      expect(endpoint.received.map((r) => r.body.params.message.parts[0].text)).toContain(text);
    });

    it('a wait the client cancels, or whose session ends, stops waiting at the hub at once', async () => {
      const id = await sendTask(hub, alice, 'bob', `cancelled wait ${transport}`);
      const cancel = new AbortController();
      const cancelled = agent.client.callTool(
        { name: 'muster_wait_task', arguments: { id, timeoutSeconds: 50 } },
        { signal: cancel.signal },
      );
      await expect.poll(() => openStreams(hub)).toBe(1); // the wait on the task's event log
      cancel.abort();
      await expect(cancelled).rejects.toThrow();
      await expect.poll(() => openStreams(hub)).toBe(0);
      const leaving = await connectMcp(transport, hub, alice.token);
      const orphaned = leaving.client
        .callTool({ name: 'muster_wait_task', arguments: { id, timeoutSeconds: 50 } })
        .catch(() => undefined);
      await expect.poll(() => openStreams(hub)).toBe(1);
      await leaving.close();
      await orphaned;
      await expect.poll(() => openStreams(hub)).toBe(0);
    });
  });
});
