/**
 * What the colony refuses in a message before the hub reads it as an intent: a follow-up on a
 * task (this door takes none), a contextId other than the colony's, and a part that is neither
 * text nor JSON data. The intent's own rules (a title, a footprint, the options) are the intent
 * kind's: it refuses the rest, saying what to send.
 */
import { isJsonObject } from '../../a2a/types.js';
import { camelKeys } from '../../a2a/validate.js';
import { HubError } from '../../errors/hub-error.js';

const FORMAT =
  'Send a text part (first line the title, the rest why) and a data part {"footprint": ["src/links/**"], "acceptance"?: [...], "priority"?: 1-10, "force"?: true}';

const refuse = (field: string, description: string, message: string) =>
  new HubError('INVALID_PARAMS', message, { fields: [{ field, description }], hint: FORMAT });

/** SendMessage's params (ProtoJSON, camelCase) once the colony's own refusals are passed. */
export function declarable(params: unknown, colony: string): unknown {
  const sent = camelKeys(params);
  const message = isJsonObject(sent) ? sent['message'] : undefined;
  if (!isJsonObject(message)) return sent; // the hub says what a message is
  const { taskId, contextId, parts } = message;
  if (typeof taskId === 'string' && taskId !== '')
    throw refuse(
      'message.taskId',
      'a message on an existing task',
      'This door takes no follow-up messages on an intent: to change the work, withdraw it with CancelTask and send a new message without taskId; to follow it, poll GetTask',
    );
  if (contextId !== undefined && contextId !== '' && contextId !== colony)
    throw refuse(
      'message.contextId',
      `must be the colony's id, ${colony}`,
      `Intents in colony ${colony} have contextId "${colony}": send that, or leave contextId out`,
    );
  if (Array.isArray(parts))
    parts.forEach((part, i) => {
      if (isJsonObject(part) && part['text'] === undefined && part['data'] === undefined)
        throw refuse(
          `message.parts[${i}]`,
          'a file part',
          "The colony reads text and JSON data parts only: describe the work in a text part and name the files it touches in the data part's footprint",
        );
    });
  return sent;
}

/** ListTasks' params once a contextId that is not the colony's is refused. */
export function listable(params: unknown, colony: string): unknown {
  const sent = camelKeys(params ?? {});
  const contextId = isJsonObject(sent) ? sent['contextId'] : undefined;
  if (contextId !== undefined && contextId !== '' && contextId !== colony)
    throw new HubError('INVALID_PARAMS', `This colony lists only its own intents, whose contextId is "${colony}"`, {
      fields: [{ field: 'contextId', description: `must be ${colony}, or left out` }],
      hint: `Send "contextId": "${colony}", or leave it out; another colony lists its intents at its own /api/colonies/{colony}/a2a`,
    });
  return sent;
}
