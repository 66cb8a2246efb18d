// The endpoints the forwarding scenarios use, driven directly by @a2a-js/sdk 0.3.14 clients (no
// hub): they must behave as the scenarios expect, so that a failure there is the hub's.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, Task } from 'sdk03';
import { startAdkEndpoint, type AdkEndpoint } from '../lib/adk.js';
import { client03 } from '../lib/clients.js';
import { startSdkEndpoint, type SdkEndpoint } from '../lib/sdk-endpoint.js';

let sdk: SdkEndpoint;
let adk: AdkEndpoint;
beforeAll(async () => {
  sdk = await startSdkEndpoint('direct-sdk');
  adk = await startAdkEndpoint('direct_adk');
});
afterAll(async () => {
  await sdk?.close();
  await adk?.close();
});

const msg = (parts: Message['parts'], extra: Partial<Message> = {}): Message => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'user',
  parts,
  ...extra,
});
const texts = (t: Task) => (t.artifacts ?? []).flatMap((a) => a.parts.map((p) => (p.kind === 'text' ? p.text : '')));

describe('the endpoints, without the hub', () => {
  it('the SDK endpoint serves its card at its base URL, answers, asks and cancels', async () => {
    const c = await client03(sdk.base);
    expect((await c.getAgentCard()).name).toBe('direct-sdk');
    const done = (await c.sendMessage({
      message: msg([{ kind: 'text', text: 'hi' }]),
      configuration: { blocking: true },
    })) as Task;
    expect(done.status.state).toBe('completed');
    expect(texts(done)).toContain('SDK endpoint read: hi');
    const asked = (await c.sendMessage({
      message: msg([{ kind: 'text', text: 'ask x' }]),
      configuration: { blocking: true },
    })) as Task;
    expect(asked.status.state).toBe('input-required');
    const answered = (await c.sendMessage({
      message: msg([{ kind: 'text', text: 'Chapter 3' }], { taskId: asked.id, contextId: asked.contextId }),
      configuration: { blocking: true },
    })) as Task;
    expect(answered.status.state).toBe('completed');
    expect(texts(answered)).toContain('SDK endpoint got: Chapter 3');
    const slow = (await c.sendMessage({
      message: msg([{ kind: 'text', text: 'slow y' }]),
      configuration: { blocking: false },
    })) as Task;
    await new Promise((r) => setTimeout(r, 200));
    expect((await c.cancelTask({ id: slow.id })).status.state).toBe('canceled');
  });

  it('the ADK endpoint asks with a long-running tool call, takes its function response, and cancels a waiting task', async () => {
    const c = await client03(adk.base);
    const card = await c.getAgentCard();
    expect(card.name).toBe('direct_adk');
    const done = (await c.sendMessage({
      message: msg([{ kind: 'text', text: 'hi' }]),
      configuration: { blocking: true },
    })) as Task;
    expect(done.status.state).toBe('completed');
    expect(texts(done)).toContain('ADK agent read: hi');
    const asked = (await c.sendMessage({
      message: msg([{ kind: 'text', text: 'ask x' }]),
      configuration: { blocking: true },
    })) as Task;
    expect(asked.status.state).toBe('input-required');
    const call = asked.status.message!.parts.find(
      (p) => p.kind === 'data' && (p.data as { name?: string }).name === 'ask_user',
    ) as Extract<Message['parts'][number], { kind: 'data' }>;
    expect(call).toBeDefined();
    const typeKey = Object.keys(call.metadata ?? {}).find((k) => call.metadata![k] === 'function_call')!;
    const answer = {
      kind: 'data' as const,
      data: { id: (call.data as { id: string }).id, name: 'ask_user', response: { answer: 'Chapter 3' } },
      metadata: { [typeKey]: 'function_response' },
    };
    const answered = (await c.sendMessage({
      message: msg([answer], { taskId: asked.id, contextId: asked.contextId }),
      configuration: { blocking: true },
    })) as Task;
    expect(answered.status.state).toBe('completed');
    expect(texts(answered)).toContain('ADK agent got the answer: {"answer":"Chapter 3"}');
    const waiting = (await c.sendMessage({
      message: msg([{ kind: 'text', text: 'ask y' }]),
      configuration: { blocking: true },
    })) as Task;
    expect((await c.cancelTask({ id: waiting.id })).status.state).toBe('canceled');
  });
});
