/**
 * `muster attach` end to end: a real `muster` process holds bob's live inbox and answers with a
 * small node script (test/fixtures/attach-agent.mjs); alice sends through the official A2A SDK
 * client. Covers answers, input-required then a follow-up, a script's bad output and failure
 * (FAILED with a clear message, attach keeps running), a cancel that kills the running command,
 * and a hub restart: attach reconnects with Last-Event-ID and handles each event once. On
 * PostgreSQL, also attach on one node with the sender on another.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, register, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { runMuster, spawnMuster } from './helpers/cli.js';
import { sdkClient, sendRequest, wire } from './helpers/sdk.js';
import { clusterOnPostgres } from './helpers/cluster.js';
import type { NodeProcess } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';

const script = fileURLToPath(new URL('./fixtures/attach-agent.mjs', import.meta.url));

let hub: TestHub;
let alice: Registered, bob: Registered;
let asAlice: Client;
let attach: ChildProcess;
let out = '';

async function until<T>(what: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await what();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`timed out; attach said:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sendText = async (text: string, taskId?: string) =>
  wire(await asAlice.sendMessage(sendRequest(text, { returnImmediately: true, ...(taskId ? { taskId } : {}) })));
const settled = (
  id: string,
  states = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING'],
) =>
  until(async () => {
    const task = wire(await asAlice.getTask({ tenant: '', id }));
    return states.includes(task.status.state) ? task : undefined;
  });

beforeAll(async () => {
  hub = await startTestHub();
  alice = await register(hub, 'alice', {}, ADMIN_TOKEN);
  bob = await register(hub, 'bob', {}, ADMIN_TOKEN);
  asAlice = await sdkClient(`${hub.url}agents/bob/`, alice.token);
  attach = spawnMuster(hub.url, ['attach', 'bob', '--exec', `node ${script}`, '--json'], bob.token);
  attach.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  attach.stderr!.on('data', (d: Buffer) => (out += `# ${d.toString()}`.replace(/\n(?!$)/g, '\n# ')));
});
afterAll(async () => {
  attach?.kill('SIGTERM');
  await hub?.destroy();
});

const report = () =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const reportsOf = (taskId: string) => report().filter((r) => r['taskId'] === taskId);

describe('muster attach --exec', () => {
  it("answers a new task with the script's state, message and artifact", async () => {
    const sent = await sendText('complete the report');
    const task = await settled(sent.id, ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED']);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message.parts[0].text).toBe('done: the report');
    expect(task.artifacts[0]).toMatchObject({ artifactId: 'result', parts: [{ text: 'THE REPORT' }] });
  });

  it('asks for input, then answers the follow-up', async () => {
    const sent = await sendText('ask');
    expect((await settled(sent.id)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await sendText('the blue one', sent.id);
    const task = await settled(sent.id, ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED']);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message.parts[0].text).toBe('got: the blue one');
  });

  it('fails the task, saying why, when the script prints no JSON, a bad state, or exits non-zero; and keeps going', async () => {
    const cases: [string, RegExp][] = [
      ['garbage', /stdout is not JSON/],
      ['badstate', /"state" must be one of completed, working/],
      ['crash', /exited with 3: boom: the disk is full/],
    ];
    for (const [text, why] of cases) {
      const sent = await sendText(text);
      const task = await settled(sent.id, ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED']);
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(task.status.message.parts[0].text).toMatch(why);
    }
    expect(attach.exitCode).toBeNull();
  });

  it('kills the command still running for a task that is canceled', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'muster-attach-')), 'pid');
    const sent = await sendText(`sleep ${marker}`);
    const pid = await until(() =>
      existsSync(marker) && readFileSync(marker, 'utf8') !== '' ? Number(readFileSync(marker, 'utf8')) : undefined,
    );
    await asAlice.cancelTask({ tenant: '', id: sent.id, metadata: {} });
    await until(() => reportsOf(sent.id).find((r) => r['event'] === 'cancel'));
    expect(reportsOf(sent.id)[0]).toMatchObject({ event: 'cancel', stopped: true });
    await until(() => {
      try {
        process.kill(pid, 0);
        return undefined;
      } catch {
        return true; // gone
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(wire(await asAlice.getTask({ tenant: '', id: sent.id })).status.state).toBe('TASK_STATE_CANCELED');
    expect(reportsOf(sent.id)).toHaveLength(1); // no answer was attempted for it
  });

  it("refuses a token that is not the agent's own (exit 2) and a token the hub refuses (exit 1)", async () => {
    const wrong = await runMuster(hub.url, ['attach', 'alice', '--exec', 'true', '--json'], bob.token);
    expect(wrong.code).toBe(2);
    expect(JSON.parse(wrong.stdout).error.code).toBe('WRONG_AGENT');
    const forged = await runMuster(hub.url, ['attach', 'bob', '--exec', 'true', '--json'], 'not-a-real-token');
    expect(forged.code).toBe(1);
    expect(JSON.parse(forged.stdout).error.code).toBe('UNAUTHENTICATED');
  });

  it('reconnects after the hub restarts and handles each event once', async () => {
    const working = await sendText('work');
    expect((await settled(working.id)).status.state).toBe('TASK_STATE_WORKING');
    await until(() => reportsOf(working.id)[0]);
    await hub.restart(300);
    const after = await sendText('complete after the restart');
    expect((await settled(after.id, ['TASK_STATE_COMPLETED'])).status.message.parts[0].text).toBe(
      'done: after the restart',
    );
    await new Promise((r) => setTimeout(r, 500));
    // The task left WORKING before the drop is not run again: attach resumed after it, not from the start.
    expect(reportsOf(working.id)).toHaveLength(1);
    expect(reportsOf(after.id)).toHaveLength(1);
    expect(out).toMatch(/holding the live inbox again, from event \d+/);
    const history = wire(await asAlice.getTask({ tenant: '', id: after.id })).history;
    expect(history.filter((m: { role: string }) => m.role === 'ROLE_AGENT')).toHaveLength(1);
  });
});

describe.skipIf(!testPostgres)('muster attach on one node, the sender on another (PostgreSQL)', () => {
  const admin = 'attach-nodes-admin';
  const cluster = clusterOnPostgres('attach_nodes', ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: admin },
    startMs: 30_000,
  }));
  let attached: ChildProcess;
  let said = '';
  afterAll(() => void attached?.kill('SIGTERM'));

  it('answers through node A what was sent through node B, with the SDK client', async () => {
    const [A, B] = cluster.nodes as [NodeProcess, NodeProcess];
    const sender = await register(B, 'nodes-alice', {}, admin);
    const agent = await register(A, 'nodes-bob', {}, admin);
    attached = spawnMuster(A.url, ['attach', 'nodes-bob', '--exec', `node ${script}`, '--json'], agent.token);
    attached.stdout!.on('data', (d: Buffer) => (said += d.toString()));
    attached.stderr!.on('data', (d: Buffer) => (said += d.toString()));
    const client = await sdkClient(`${B.url}agents/nodes-bob/`, sender.token);
    const sent = wire(await client.sendMessage(sendRequest('complete across nodes', { returnImmediately: true })));
    const task = await until(async () => {
      const t = wire(await client.getTask({ tenant: '', id: sent.id }));
      return t.status.state === 'TASK_STATE_COMPLETED' ? t : undefined;
    }, 15_000).catch((e: Error) => {
      throw new Error(`${e.message}\nattach said:\n${said}`);
    });
    expect(task.status.message.parts[0].text).toBe('done: across nodes');
    expect(task.artifacts[0].parts[0].text).toBe('ACROSS NODES');
  });
});
