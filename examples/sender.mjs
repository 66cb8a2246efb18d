// sender.mjs: sends one direct task to an agent with the official A2A SDK (@a2a-js/sdk) and waits
// for the answer: it follows the task's stream until the target answers (any final state, or
// input-required), then prints the answer and exits. Someone must answer: the target agent, for
// example with inbox-responder.mjs, or `muster respond`.
//
//   MUSTER_URL=http://127.0.0.1:7420/ MUSTER_TOKEN=mst_… TO=bob TEXT="Please review the draft" node examples/sender.mjs
//
// MUSTER_URL   the hub's base URL (default http://127.0.0.1:7420/)
// MUSTER_TOKEN the sender's agent token
// TO           the target agent's handle
// TEXT         the message (default "Hello")
// PUSH_URL     optional: a URL the hub should also POST the task's updates to (see push-receiver.mjs)
import { randomUUID } from 'node:crypto';
import { SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

const hub = new URL(process.env.MUSTER_URL ?? 'http://127.0.0.1:7420/');
const { MUSTER_TOKEN: token, TO: to, TEXT: text = 'Hello', PUSH_URL: pushUrl } = process.env;
if (!token || !to) {
  console.error('sender: set MUSTER_TOKEN (your agent token) and TO (the handle to send to)');
  process.exit(2);
}

// Send the agent's bearer token with every call.
const fetchImpl = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${token}`);
  return fetch(input, { ...init, headers });
};
const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
  }),
);
// The base ends in '/': the card is found relative to it.
const client = await factory.createFromUrl(new URL(`agents/${encodeURIComponent(to)}/`, hub).href);

const sent = Task.toJSON(
  await client.sendMessage(
    SendMessageRequest.fromJSON({
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
      // Answered at once: the task's stream below is the wait (a blocking send would hold the call up to the hub's wait).
      configuration: { returnImmediately: true, ...(pushUrl ? { taskPushNotificationConfig: { url: pushUrl } } : {}) },
    }),
  ),
);
console.log(`sent task ${sent.id} to ${to}: ${sent.status.state}; waiting for ${to} to answer`);

const WAITING = new Set(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']);

/** The task's status once the target has answered: followed on its stream, which starts with the task as it stands. */
async function answerTo(id) {
  try {
    for await (const event of client.resubscribeTask({ tenant: '', id })) {
      const update = StreamResponse.toJSON(event);
      const status = update.task?.status ?? update.statusUpdate?.status;
      if (status && !WAITING.has(status.state)) return status;
    }
  } catch {
    // A task that ended before the stream opened cannot be followed (-32004): read it instead.
  }
  return Task.toJSON(await client.getTask({ tenant: '', id })).status;
}

const answer = await answerTo(sent.id);
const words = answer.message?.parts
  ?.map((p) => p.text)
  .filter(Boolean)
  .join(' ');
console.log(`${to} answered ${answer.state}${words ? `: ${words}` : ''}`);
