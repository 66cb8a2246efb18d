/**
 * A2A 0.3 shapes (the `message/send`, `tasks/get` … method family). Incoming 0.3 params are
 * rewritten into 1.0 ProtoJSON before validation, so both families share one schema; outgoing
 * 1.0 values are rewritten into 0.3 shapes (`kind`, lower-case states, file parts), and so are the
 * fields a refusal names.
 */
import { joinField } from '../errors/hub-error.js';
import { dropUndefined } from './schemas.js';
import { LEGACY_STATE, TERMINAL_STATES } from './states.js';
import {
  isJsonObject,
  type Artifact,
  type JsonObject,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskState,
  type TaskStatus,
} from './types.js';

const ROLE_IN: Record<string, string> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' };

/** A 0.3 part (`kind`, file parts under `file`) in the 1.0 shape; an unknown kind keeps only its metadata. */
/** A 0.3 part (`kind`, file parts under `file`) as the 1.0 part. */
export function partIn(part: unknown): unknown {
  if (!isJsonObject(part)) return part;
  const { kind, file, text, data, metadata } = part;
  const common = dropUndefined({ metadata });
  if (kind === 'text') return Object.assign(common, { text });
  if (kind === 'data') return Object.assign(common, { data });
  if (kind === 'file' && isJsonObject(file)) {
    const meta = dropUndefined({ filename: file['name'], mediaType: file['mimeType'] });
    if (file['bytes'] !== undefined) return Object.assign(common, meta, { raw: file['bytes'] });
    return Object.assign(common, meta, { url: file['uri'] });
  }
  return common; // unknown kind: validation names the part
}

/** A 0.3 message (`kind`, lower-case role, 0.3 parts) in the 1.0 shape. */
export function messageIn(message: unknown): unknown {
  if (!isJsonObject(message)) return message;
  const { kind: _kind, role, parts, ...rest } = message;
  return Object.assign(rest, {
    role: typeof role === 'string' ? (ROLE_IN[role] ?? role) : role,
    parts: Array.isArray(parts) ? parts.map(partIn) : parts,
  });
}

/** 0.3 MessageSendParams → 1.0 SendMessageRequest JSON (still unvalidated). */
export function sendParamsIn(params: unknown): unknown {
  if (!isJsonObject(params)) return params;
  const { message, configuration, ...rest } = params;
  // 0.3 waits only when asked (`blocking: true`); 1.0 waits unless told not to.
  const config = isJsonObject(configuration)
    ? dropUndefined({
        acceptedOutputModes: configuration['acceptedOutputModes'],
        historyLength: configuration['historyLength'],
        returnImmediately: configuration['blocking'] === true ? undefined : true,
        taskPushNotificationConfig: isJsonObject(configuration['pushNotificationConfig'])
          ? pushConfigIn(configuration['pushNotificationConfig'])
          : undefined,
      })
    : configuration === undefined
      ? { returnImmediately: true }
      : configuration;
  return dropUndefined(Object.assign(rest, { message: messageIn(message), configuration: config }));
}

/**
 * Marks a push config set through a 0.3 method, whose deliveries take the 0.3 shape (hub/push.ts):
 * a symbol, so no JSON a caller sends can carry it.
 */
export const SET_THROUGH_03: unique symbol = Symbol('push config set through a 0.3 method');

/** A 0.3 PushNotificationConfig (`authentication.schemes[]`) as the 1.0 fields, marked as set through 0.3. */
export function pushConfigIn(config: JsonObject): Record<string, unknown> {
  const { authentication, ...rest } = config;
  const marked = Object.assign(rest as Record<string, unknown>, { protocol: SET_THROUGH_03 });
  if (!isJsonObject(authentication)) return marked;
  const schemes = authentication['schemes'];
  const scheme = Array.isArray(schemes) ? schemes[0] : authentication['scheme'];
  return Object.assign(marked, {
    authentication: dropUndefined({ scheme, credentials: authentication['credentials'] }),
  });
}

/*
 * Field paths, 1.0 → 0.3: validation names a field where the 1.0 shape has it, and these name it
 * where the 0.3 caller sent it (validate.ts renamedFields). Inside `data` and `metadata` nothing moves.
 */
const PUSH_SCHEME = /^authentication\.scheme(?=$|[.[])/;
const FILE_PART_FIELD = /^(message\.parts\[\d+\])\.(raw|url|filename|mediaType)(?=$|[.[])/;
const FILE_FIELD_03: Record<string, string> = {
  raw: 'file.bytes',
  url: 'file.uri',
  filename: 'file.name',
  mediaType: 'file.mimeType',
};
const INLINE_PUSH = 'configuration.taskPushNotificationConfig';

/** A push config's field as 0.3 spells it: the scheme is the first of `schemes`. */
const pushConfigFieldOut = (field: string): string => field.replace(PUSH_SCHEME, 'authentication.schemes[0]');

/** A field of `tasks/pushNotificationConfig/set`: all but `taskId` were sent under `pushNotificationConfig`. */
export const pushSetFieldOut = (field: string): string =>
  field === 'taskId' ? field : joinField('pushNotificationConfig', pushConfigFieldOut(field));

/** A field of `message/send` and `message/stream`: a file part's fields under `file`, the inline push config as `pushNotificationConfig`. */
export function sendFieldOut(field: string): string {
  if (field === INLINE_PUSH || field.startsWith(`${INLINE_PUSH}.`)) {
    return joinField('configuration.pushNotificationConfig', pushConfigFieldOut(field.slice(INLINE_PUSH.length + 1)));
  }
  return field.replace(FILE_PART_FIELD, (_, part: string, name: string) => `${part}.${FILE_FIELD_03[name]}`);
}

/** A 1.0 push config as 0.3's TaskPushNotificationConfig. */
export function pushConfigOut(config: {
  taskId: string;
  id: string;
  url: string;
  token?: string;
  authentication?: { scheme: string };
}): JsonObject {
  const { taskId, authentication, ...rest } = config;
  return {
    taskId,
    pushNotificationConfig: Object.assign(
      rest,
      authentication ? { authentication: { schemes: [authentication.scheme] } } : {},
    ),
  };
}

function partOut(part: Part): JsonObject {
  const meta = dropUndefined({ metadata: part.metadata });
  if (part.text !== undefined) return { kind: 'text', text: part.text, ...meta };
  if (part.data !== undefined)
    return { kind: 'data', data: isJsonObject(part.data) ? part.data : { value: part.data }, ...meta };
  const file = dropUndefined({ name: part.filename, mimeType: part.mediaType });
  if (part.raw !== undefined) return { kind: 'file', file: Object.assign(file, { bytes: part.raw }), ...meta };
  return { kind: 'file', file: Object.assign(file, { uri: part.url }), ...meta };
}

export function messageOut(message: Message): JsonObject {
  const { role, parts, ...rest } = message;
  return Object.assign(rest, {
    kind: 'message',
    role: role === 'ROLE_AGENT' ? 'agent' : 'user',
    parts: parts.map(partOut),
  });
}

const artifactOut = (artifact: Artifact): JsonObject =>
  Object.assign({} as JsonObject, artifact, { parts: artifact.parts.map(partOut) });

export function statusOut(status: TaskStatus): JsonObject {
  return dropUndefined({
    state: LEGACY_STATE[status.state],
    message: status.message ? messageOut(status.message) : undefined,
    timestamp: status.timestamp,
  });
}

/** 0.3 streams end at a terminal state and also when the task waits on its client (input or auth required). */
export const legacyFinal = (state: TaskState): boolean =>
  TERMINAL_STATES.has(state) || state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED';

/** A stream event in 0.3 shape: `kind`, and `final` on the status update that ends the stream. */
export function streamEventOut(event: StreamResponse): JsonObject {
  if ('task' in event) return taskOut(event.task);
  if ('message' in event) return messageOut(event.message);
  if ('statusUpdate' in event) {
    const { status, ...rest } = event.statusUpdate;
    return Object.assign(rest, { kind: 'status-update', status: statusOut(status), final: legacyFinal(status.state) });
  }
  const { artifact, ...rest } = event.artifactUpdate;
  return Object.assign(rest, { kind: 'artifact-update', artifact: artifactOut(artifact) });
}

export function taskOut(task: Task): JsonObject {
  return dropUndefined({
    kind: 'task',
    id: task.id,
    contextId: task.contextId,
    status: statusOut(task.status),
    history: task.history?.map(messageOut),
    artifacts: task.artifacts?.map(artifactOut),
    metadata: task.metadata,
  });
}
