/**
 * An orchestrator that sets up its work through the MCP door alone (issue 15), with the official
 * MCP client over stdio (`muster mcp`) and Streamable HTTP: a space made, a worker added, re-roled
 * and removed, an intent declared, its question answered and the intent withdrawn; and the
 * refusals said in words. On SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAll, rest, type Registered, startTestHub, type TestHub } from './helpers/hub.js';
import { callTool, mcpConnections, type McpConnection, type McpTransportName } from './helpers/mcp.js';

let hub: TestHub;
let boss: Registered, hand: Registered, stranger: Registered;
const { connect, closeAll } = mcpConnections(() => hub);

beforeAll(async () => {
  hub = await startTestHub();
  [boss, hand, stranger] = await registerAll(hub, 'boss', 'hand', 'stranger');
});
afterAll(async () => {
  await closeAll();
  await hub?.destroy();
});

describe.each<McpTransportName>(['stdio', 'http'])('an MCP-only orchestrator sets up its work over %s', (transport) => {
  let asBoss: McpConnection, asHand: McpConnection, asStranger: McpConnection, anonymous: McpConnection;
  const space = `setup-${transport}`;
  const members = async () =>
    (await callTool(anonymous.client, 'muster_space', { name: space })).structured.members.map(
      (m: { handle: string; role: string }) => `${m.handle}:${m.role}`,
    );
  beforeAll(async () => {
    [asBoss, asHand, asStranger, anonymous] = await Promise.all([
      connect(transport, boss),
      connect(transport, hand),
      connect(transport, stranger),
      connect(transport),
    ]);
  });

  it('makes a space, adds a worker, re-roles and removes it, declares an intent, answers its question and withdraws it', async () => {
    const made = await callTool(asBoss.client, 'muster_space_create', {
      name: space,
      description: 'Set up through MCP alone',
      orchestratorPriority: 3,
    });
    expect(made.isError).toBe(false);
    expect(made.structured.space).toMatchObject({
      name: space,
      owner: 'boss',
      claim: 'members',
      orchestratorPriority: 3,
    });
    expect(made.structured.next).toContain(`muster_space_member_add {space: "${space}", handle, role: "worker"}`);
    expect(await members()).toEqual([]);
    const listed = await callTool(anonymous.client, 'muster_spaces');
    expect(listed.structured.items.map((s: { name: string }) => s.name)).toContain(space);

    const added = await callTool(asBoss.client, 'muster_space_member_add', { space, handle: 'hand', role: 'worker' });
    expect(added.text).toContain(`hand is a worker in space ${space}`);
    expect(await members()).toEqual(['hand:worker']);
    await callTool(asBoss.client, 'muster_space_member_add', { space, handle: 'hand', role: 'orchestrator' });
    expect(await members()).toEqual(['hand:orchestrator']);
    await callTool(asBoss.client, 'muster_space_member_add', { space, handle: 'hand', role: 'worker' });
    const opened = await callTool(asBoss.client, 'muster_space_set', { name: space, claim: 'open' });
    expect(opened.structured.space.claim).toBe('open');

    const declared = await callTool(asBoss.client, 'muster_intent_declare', {
      space,
      title: 'Index the links table',
      footprint: ['src/store/**'],
    });
    const id: string = declared.structured.task.id;
    expect(declared.structured.next).toContain(`muster_reply {id: "${id}", text}`);
    expect(declared.structured.next).toContain(`muster_intent_withdraw {id: "${id}", reason}`);
    expect((await callTool(asHand.client, 'muster_intent_claim', { id })).structured.state).toBe('TASK_STATE_WORKING');

    // The worker asks; the declarer, following the intent, is told which tool answers, and answering with it works.
    await callTool(asHand.client, 'muster_intent_ask', { id, text: 'Which column first?' });
    const waited = await callTool(asBoss.client, 'muster_wait_task', { id, untilState: 'input-required' });
    expect(waited.structured.next).toContain(`muster_reply {id: "${id}", text: "<your answer>"}`);
    const answered = await callTool(asBoss.client, 'muster_reply', { id, text: 'The url column.' });
    expect(answered.structured.task.status.state).toBe('TASK_STATE_WORKING');

    const withdrawn = await callTool(asBoss.client, 'muster_intent_withdraw', { id, reason: 'Done by hand.' });
    expect(withdrawn.isError).toBe(false);
    expect(withdrawn.structured.state).toBe('TASK_STATE_CANCELED');
    expect(withdrawn.text).toContain('Done by hand.');
    expect(withdrawn.structured.next).toContain(`muster_intent_declare {space: "${space}"`);
    const read = (await rest(hub, 'GET', `api/tasks/${id}`)).body;
    expect(read.metadata.muster.cancelReason).toBe('Done by hand.');
    const stopped = await callTool(asHand.client, 'muster_intent_heartbeat', { id });
    expect(stopped.structured.error).toMatchObject({
      code: 'LEASE_NOT_HELD',
      hint: expect.stringContaining('muster_get_task'),
    });
    expect(stopped.text).toContain('was withdrawn; stop work on it');

    const removed = await callTool(asBoss.client, 'muster_space_member_remove', { space, handle: 'hand' });
    expect(removed.structured).toMatchObject({ space, handle: 'hand', removed: true });
    expect(await members()).toEqual([]);
    const again = await callTool(asBoss.client, 'muster_space_member_remove', { space, handle: 'hand' });
    expect(again.structured.error).toMatchObject({ code: 'NOT_FOUND', remedy: 'not-found' });
    expect(again.structured.error.hint).toBe(`List the members with muster_space {name: "${space}"}`);
  });

  it('refuses, in words, an agent that does not own the space, and a space set with nothing to change', async () => {
    const made = await callTool(asBoss.client, 'muster_space_create', { name: `${space}-2` });
    expect(made.isError).toBe(false);
    const id = (
      await callTool(asBoss.client, 'muster_intent_declare', {
        space: `${space}-2`,
        title: 'Mine',
        footprint: ['a/**'],
      })
    ).structured.task.id;

    const joined = await callTool(asStranger.client, 'muster_space_member_add', {
      space: `${space}-2`,
      handle: 'stranger',
      role: 'orchestrator',
    });
    expect(joined.isError).toBe(true);
    expect(joined.structured.error).toMatchObject({
      code: 'FORBIDDEN',
      remedy: 'not-allowed',
      hint: 'The owner is boss',
    });
    expect(joined.text).toContain(`Only the owner of space ${space}-2 or the admin may add members`);
    const pulled = await callTool(asStranger.client, 'muster_intent_withdraw', { id, reason: 'not mine' });
    expect(pulled.isError).toBe(true);
    expect(pulled.structured.error.code).toBe('FORBIDDEN');
    expect(pulled.text).toMatch(/Withdraw an intent/i);
    expect((await rest(hub, 'GET', `api/tasks/${id}`)).body.status.state).toBe('TASK_STATE_SUBMITTED');

    const nothing = await callTool(asBoss.client, 'muster_space_set', { name: `${space}-2` });
    expect(nothing.structured.error).toMatchObject({ code: 'USAGE', remedy: 'fix-input' });
    expect(nothing.text).toContain('muster_space_set needs something to change');
    const taken = await callTool(asStranger.client, 'muster_space_create', { name: space });
    expect(taken.structured.error).toMatchObject({ code: 'NAME_TAKEN', hint: 'Choose another name' });
    const missing = await callTool(asStranger.client, 'muster_space', { name: 'no-such-space' });
    expect(missing.structured.error.code).toBe('SPACE_NOT_FOUND');
    expect(missing.structured.error.hint).toBe('List spaces with muster_spaces; make one with muster_space_create');
  });
});
