/**
 * Cairn's requests as its own clients build them (the seed's notes, 000_…): an open task in the
 * `cairn.open_task/0.1` form with its approval, a `cairn.task.contribution/0.1` report, sent with
 * the official SDK client at the hub's /cairn/ base; and raw JSON-RPC calls as curl would send them.
 */
import { randomUUID } from 'node:crypto';
import { Message, SendMessageRequest, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { digestOf, SOURCES } from '../helpers/review.js';
import { rpc } from '../helpers/hub.js';
import { sdkClient } from '../helpers/sdk.js';

export { digestOf, SOURCES };

export const cairnBase = (node: { url: string }) => `${node.url}cairn/`;

/** Cairn's client, pointed at /cairn/ instead of its own host root. */
export const cairnClient = (node: { url: string }, token?: string): Promise<Client> =>
  sdkClient(cairnBase(node), token);

export function openTask(deadlineInMs: number, over: Record<string, unknown> = {}) {
  return {
    schema: 'cairn.open_task/0.1',
    operation_id: randomUUID(),
    task_type: 'source_review',
    goal: 'Does the A2A specification define a ListTasks method with keyset pagination',
    source_urls: SOURCES,
    acceptance_criteria: ['The method is named in the specification'],
    deadline_at: new Date(Date.now() + deadlineInMs).toISOString(),
    min_independent: 2,
    max_contributors: 5,
    budget: { currency: 'USD', max_total_minor: 0 },
    reward_points: 0,
    min_share_percent: 10,
    publication_plan: 'a2a_thread',
    ...over,
  };
}

export const approvalOf = (request: unknown) => ({
  public_input_digest: digestOf(request),
  public_output: true,
  scope: 'this_open_task',
});

export function report(verdict = 'source_supported', over: Record<string, unknown> = {}) {
  return {
    schema: 'cairn.task.contribution/0.1',
    verdict,
    summary: 'The specification names ListTasks and describes an opaque page token.',
    conditions: 'Read on the published 1.0 text',
    attempts: ['Searched the specification for ListTasks'],
    limitations: 'Did not check older drafts',
    source_urls: [SOURCES[0]],
    public_output_approved: true,
    ...over,
  };
}

/** The SDK's answer as wire JSON: a Task, or Cairn's refusal Message. */
export const asJson = (answer: Task | Message): any =>
  'status' in answer ? Task.toJSON(answer as Task) : Message.toJSON(answer as Message);

/** SendMessage with one data part, as Cairn's client sends it. */
export async function sendData(client: Client, data: unknown, taskId?: string): Promise<any> {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }], ...(taskId ? { taskId } : {}) };
  return asJson((await client.sendMessage(SendMessageRequest.fromJSON({ message }))) as never);
}

export const post = (client: Client, request: unknown, approval: unknown = approvalOf(request)) =>
  sendData(client, { request, approval });

/** A raw JSON-RPC 1.0 call at /cairn/api/a2a. */
export const cairnRpc = (node: { url: string }, method: string, params: unknown, token?: string) =>
  rpc(`${cairnBase(node)}api/a2a`, method, params, { headers: { 'A2A-Version': '1.0' }, ...(token ? { token } : {}) });

/** The error object of a refusal Message. */
export const refusalOf = (answer: any) => {
  if (answer.metadata?.cairn?.accepted !== false) throw new Error(`not a refusal: ${JSON.stringify(answer)}`);
  return answer.parts[0].data.error;
};

/** Polls GetTask at /cairn/ until the task leaves WORKING. */
export async function evaluated(node: { url: string }, id: string, ms = 15_000): Promise<any> {
  const until = Date.now() + ms;
  for (;;) {
    const { body } = await cairnRpc(node, 'GetTask', { id });
    if (body.result.status.state !== 'TASK_STATE_WORKING') return body.result;
    if (Date.now() > until) throw new Error(`task ${id} was not evaluated in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
