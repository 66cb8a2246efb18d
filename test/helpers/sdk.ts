/** The official @a2a-js/sdk client, as an agent with a bearer token would use it. */
import { SendMessageRequest, Task, type Message } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { randomUUID } from 'node:crypto';

export async function sdkClient(base: string, token?: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
  });
  return new ClientFactory(options).createFromUrl(base);
}

/** A SendMessage request from wire JSON (the SDK's codec fills in its internal shape). */
export const sendRequest = (
  text: string,
  extra: { taskId?: string; contextId?: string; messageId?: string; returnImmediately?: boolean } = {},
) =>
  SendMessageRequest.fromJSON({
    message: {
      messageId: extra.messageId ?? randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(extra.taskId ? { taskId: extra.taskId } : {}),
      ...(extra.contextId ? { contextId: extra.contextId } : {}),
    },
    ...(extra.returnImmediately !== undefined ? { configuration: { returnImmediately: extra.returnImmediately } } : {}),
  });

/** A Task from the SDK as ProtoJSON, so tests compare readable states ("TASK_STATE_WORKING"). */
export const wire = (task: Task | Message): any => ('status' in task ? Task.toJSON(task as Task) : task);
