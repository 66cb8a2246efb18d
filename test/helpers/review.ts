/** Review tasks as a participant builds them: requests, approvals, contributions, sent with the SDK client. */
import { createHash, randomUUID } from 'node:crypto';
import { SendMessageRequest } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { wire } from './sdk.js';

/** RFC 8785 for what requests hold (strings, integers, arrays, objects): sorted keys, no whitespace. Written apart from the hub's code on purpose. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const digestOf = (request: unknown) => `sha256:${createHash('sha256').update(canonical(request)).digest('hex')}`;

export const SOURCES = ['https://github.com/a2aproject/A2A', 'https://nodejs.org/api/http.html'];

export function reviewRequest(deadlineInMs: number, over: Record<string, unknown> = {}) {
  return {
    title: 'Does the spec define a task list method?',
    question: 'Does the A2A 1.0 specification define a ListTasks method with keyset pagination?',
    sources: SOURCES,
    acceptance: ['The method is named in the specification', 'Its page token is described'],
    deadline: new Date(Date.now() + deadlineInMs).toISOString(),
    min_independent: 2,
    max_contributors: 5,
    ...over,
  };
}

export const approvalFor = (request: unknown, over: Record<string, unknown> = {}) => ({
  public_input_digest: digestOf(request),
  public_output: true,
  scope: 'this_task',
  ...over,
});

export const openData = (request: unknown, approval: unknown = approvalFor(request)) => ({
  skill: 'review.open',
  args: { request, approval },
});

export function contribution(verdict = 'source_supported', over: Record<string, unknown> = {}) {
  return {
    verdict,
    summary: 'The specification names ListTasks and describes an opaque page token.',
    conditions: ['Read on the published 1.0 text'],
    attempts: ['Searched the specification for ListTasks'],
    limitations: ['Did not check older drafts'],
    source_urls: [SOURCES[0]],
    ...over,
  };
}

/** A message whose only part is `data`, as JSON-RPC params. */
export const dataParams = (data: unknown, taskId?: string) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }], ...(taskId ? { taskId } : {}) },
});

/** Sends a data part with the official SDK client; answers the task as ProtoJSON. */
export async function sendData(client: Client, data: unknown, taskId?: string): Promise<any> {
  return wire((await client.sendMessage(SendMessageRequest.fromJSON(dataParams(data, taskId)))) as never);
}
