/**
 * The fast path of SendMessage's params: most sends are a message of text parts with an id and a
 * role, and nothing else. Zod takes several microseconds a request on that (its preprocessors,
 * refinements and transforms), so this checks exactly that shape by hand and builds what
 * sendMessageParamsSchema would answer, key for key and in the same order (the idempotency
 * fingerprint is taken over it). Anything else, an error included, it leaves to the schema:
 * `undefined` means "not the common shape", never "invalid". Tested against the schema in
 * common-send.test.ts.
 */
import { ID_MAX } from './schemas.js';
import type { Message, Part, SendMessageConfiguration, SendMessageParams } from './types.js';

const PARAMS_KEYS = new Set(['message', 'configuration']);
const MESSAGE_KEYS = new Set(['messageId', 'contextId', 'taskId', 'role', 'parts']);
const PART_KEYS = new Set(['text', 'mediaType']);
const CONFIGURATION_KEYS = new Set(['acceptedOutputModes', 'historyLength', 'returnImmediately']);

export function commonSend(params: unknown): SendMessageParams | undefined {
  if (!onlyKeys(params, PARAMS_KEYS)) return undefined;
  const message = commonMessage(params['message']);
  if (message === undefined) return undefined;
  if (params['configuration'] === undefined) return { message };
  const configuration = commonConfiguration(params['configuration']);
  return configuration && { message, configuration };
}

function commonMessage(value: unknown): Message | undefined {
  if (!onlyKeys(value, MESSAGE_KEYS)) return undefined;
  const { messageId, contextId, taskId, role } = value;
  if (typeof messageId !== 'string' || messageId.length === 0 || messageId.length > ID_MAX) return undefined;
  if (!optionalId(contextId) || !optionalId(taskId)) return undefined;
  if (role !== 'ROLE_USER' && role !== 'ROLE_AGENT') return undefined;
  const parts = textParts(value['parts']);
  if (parts === undefined) return undefined;
  // In the schema's key order; '' reads as not set (ProtoJSON), as in the schema.
  if (!contextId) return taskId ? { messageId, taskId, role, parts } : { messageId, role, parts };
  return taskId ? { messageId, contextId, taskId, role, parts } : { messageId, contextId, role, parts };
}

function textParts(value: unknown): Part[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const parts: Part[] = [];
  for (const part of value) {
    if (!onlyKeys(part, PART_KEYS) || typeof part['text'] !== 'string') return undefined;
    const mediaType = part['mediaType'];
    if (mediaType === undefined) parts.push({ text: part['text'] });
    else if (typeof mediaType === 'string') parts.push({ text: part['text'], mediaType });
    else return undefined;
  }
  return parts;
}

function commonConfiguration(value: unknown): SendMessageConfiguration | undefined {
  if (!onlyKeys(value, CONFIGURATION_KEYS)) return undefined;
  const { acceptedOutputModes: modes, historyLength, returnImmediately } = value;
  const configuration: SendMessageConfiguration = {};
  if (modes !== undefined) {
    if (!Array.isArray(modes) || !modes.every((mode) => typeof mode === 'string')) return undefined;
    configuration.acceptedOutputModes = [...modes];
  }
  if (historyLength !== undefined) {
    if (typeof historyLength !== 'number' || !Number.isSafeInteger(historyLength) || historyLength < 0)
      return undefined;
    configuration.historyLength = historyLength;
  }
  if (returnImmediately !== undefined) {
    if (typeof returnImmediately !== 'boolean') return undefined;
    configuration.returnImmediately = returnImmediately;
  }
  return configuration;
}

/** A contextId or taskId: absent, or a string within the limit ('' included: it means absent). */
const optionalId = (value: unknown): value is string | undefined =>
  value === undefined || (typeof value === 'string' && value.length <= ID_MAX);

/** A plain JSON object whose keys are all in `keys`, none of them null (null means "not set" to camelKeys). */
function onlyKeys(value: unknown, keys: ReadonlySet<string>): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) {
    if (!keys.has(key) || (value as Record<string, unknown>)[key] === null) return false;
  }
  return true;
}
