/**
 * The runnable agents in examples/, as a user runs them (`node examples/….mjs`, configured by
 * environment) against a real hub: a sender waits for its answer, an inbox responder gives it,
 * and a push receiver verifies the hub's signature on each notification and refuses a forgery.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAll, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { cleanEnv, eventually } from './helpers/nodes.js';
import { startWebhook } from './helpers/webhook.js';

const root = fileURLToPath(new URL('..', import.meta.url));

interface Example {
  output(): string;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** `node examples/<file>` with a clean environment plus `env`; its stdout and stderr are kept together. */
function runExample(file: string, env: Record<string, string>): Example {
  const child = spawn(process.execPath, [`examples/${file}`], {
    cwd: root,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    output: () => out,
    exited,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

const printed = (example: Example, pattern: RegExp, what: string) =>
  eventually(
    `${what} (output so far: ${example.output()})`,
    async () => example.output().match(pattern) ?? undefined,
    20_000,
  );

let hub: TestHub;
let alice: Registered, bob: Registered;
const running: Example[] = [];
const start = (file: string, env: Record<string, string>) => {
  const example = runExample(file, { MUSTER_URL: hub.url, ...env });
  running.push(example);
  return example;
};

beforeAll(async () => {
  // The receiver listens on http://127.0.0.1, which a hub calls only in development mode.
  hub = await startTestHub({ MUSTER_ALLOW_PRIVATE_TARGETS: '1' });
  [alice, bob] = await registerAll(hub, 'alice', 'bob');
});
afterAll(async () => {
  await Promise.all(running.map((e) => e.stop()));
  await hub.destroy();
});

describe('examples/', () => {
  it('the sender waits for its answer, the inbox responder gives it, the push receiver verifies each signed update', async () => {
    const receiver = start('push-receiver.mjs', { PORT: '0' });
    const receiverUrl = (await printed(receiver, /listening on (\S+)/, 'the receiver listens'))[1]!;
    const responder = start('inbox-responder.mjs', { MUSTER_TOKEN: bob.token, POLL_MS: '100' });
    const sender = start('sender.mjs', {
      MUSTER_TOKEN: alice.token,
      TO: 'bob',
      TEXT: 'Please review the draft',
      PUSH_URL: receiverUrl,
    });

    expect(await sender.exited).toBe(0);
    const taskId = sender.output().match(/sent task (\S+) to bob/)?.[1];
    expect(taskId, sender.output()).toBeDefined();
    expect(sender.output()).toContain('bob answered TASK_STATE_COMPLETED: Received: Please review the draft');
    expect(responder.output()).toContain(`answered task ${taskId} from alice: TASK_STATE_COMPLETED`);

    const task = (await rest(hub, 'GET', `api/tasks/${taskId}`, { token: alice.token })).body;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    // The hub pushed the completion to the receiver, which checked the signature against the JWKS.
    await printed(
      receiver,
      new RegExp(`verified \\(key \\S+\\) task ${taskId}: TASK_STATE_COMPLETED`),
      'the receiver verifies the completion',
    );
    expect(receiver.output()).not.toContain('rejected');
    await responder.stop();
  });

  it('the push receiver accepts the hub’s own signature over the exact body and rejects a tampered body or a missing signature', async () => {
    const receiver = start('push-receiver.mjs', { PORT: '0' });
    const receiverUrl = (await printed(receiver, /listening on (\S+)/, 'the receiver listens'))[1]!;
    // A real delivery, caught by a plain webhook, gives a real signature to replay and tamper with.
    const hook = await startWebhook();
    const sent = await rpc(
      `${hub.url}agents/bob/`,
      'SendMessage',
      { message: { messageId: 'tamper-1', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      { token: alice.token },
    );
    const id = sent.body.result.task.id as string;
    await rpc(
      `${hub.url}agents/bob/`,
      'CreateTaskPushNotificationConfig',
      { taskId: id, url: hook.url },
      { token: alice.token },
    );
    await rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body: { state: 'TASK_STATE_WORKING' } });
    const [delivery] = await hook.waitFor(1);
    await hook.close();
    const signature = String(delivery!.headers['muster-signature']);
    const post = async (body: string, headers: Record<string, string>) =>
      (
        await fetch(receiverUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/a2a+json', ...headers },
          body,
        })
      ).status;

    expect(await post(delivery!.body, { 'muster-signature': signature })).toBe(200);
    const tampered = delivery!.body.replace('TASK_STATE_WORKING', 'TASK_STATE_COMPLETED');
    expect(tampered).not.toBe(delivery!.body);
    expect(await post(tampered, { 'muster-signature': signature })).toBe(401);
    expect(await post(delivery!.body, {})).toBe(401);
    expect(receiver.output()).toContain(`verified`);
    expect(receiver.output().match(/rejected: /g)).toHaveLength(2);
  });
});
