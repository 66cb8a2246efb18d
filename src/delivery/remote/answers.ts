/**
 * What an agent's own endpoint answered a call, read in its protocol and told in the hub's
 * terms: its task (1.0 shapes, 0.3 ones rewritten), a plain Message, a refusal for good, or a
 * fault worth trying again. Nothing here is trusted yet: the hub takes what the endpoint says
 * through the same checks as any agent's answer (hub/forwards.ts).
 */
import { messageIn, partIn } from '../../a2a/legacy.js';
import { parseState } from '../../a2a/states.js';
import { isJsonObject, type JsonObject, type TaskState } from '../../a2a/types.js';
import type { EndpointInterface } from './interface.js';

/** A part, message or artifact as the endpoint sent it, in 1.0 shape but unchecked. */
export type Loose = JsonObject;

export interface RemoteTask {
  id: string;
  contextId?: string;
  /** undefined: a state the hub does not know. */
  state: TaskState | undefined;
  statusMessage?: Loose;
  artifacts: Loose[];
}

export type RemoteAnswer =
  | { kind: 'task'; task: RemoteTask }
  | { kind: 'message'; message: Loose }
  | { kind: 'refused'; code: number; message: string }
  | { kind: 'transient'; reason: string };

/** One event of the endpoint's task stream: a whole task or message, or a change of status or artifact. */
export type RemoteEvent =
  | RemoteAnswer
  | { kind: 'status'; state: TaskState | undefined; statusMessage?: Loose }
  | { kind: 'artifact'; artifact: Loose; append: boolean; lastChunk: boolean };

/** Statuses a later attempt may get past: the endpoint is busy, slow or failing for now. */
const transientStatus = (status: number) => status >= 500 || status === 408 || status === 429;
/** JSON-RPC's internal error: the endpoint's own fault, perhaps passing. */
const INTERNAL_ERROR = -32603;

export function readAnswer(iface: EndpointInterface, status: number, body: Buffer): RemoteAnswer {
  const json = parsed(body);
  if (transientStatus(status)) return { kind: 'transient', reason: `HTTP ${status}${errorWords(json)}` };
  if (iface.protocol !== 'HTTP+JSON/1.0' && isJsonObject(json) && isJsonObject(json['error'])) {
    const code = Number(json['error']['code']);
    const message = String(json['error']['message'] ?? '');
    return code === INTERNAL_ERROR
      ? { kind: 'transient', reason: `JSON-RPC ${code} ${message}` }
      : { kind: 'refused', code, message };
  }
  if (status < 200 || status >= 300)
    return { kind: 'refused', code: status, message: `HTTP ${status}${errorWords(json)}` };
  const result = iface.protocol === 'HTTP+JSON/1.0' ? json : isJsonObject(json) ? json['result'] : undefined;
  return (
    resultOf(result, iface.protocol === 'JSONRPC/0.3') ?? {
      kind: 'refused',
      code: status,
      message: 'the answer is not an A2A Task or Message',
    }
  );
}

function parsed(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The words of an error body (JSON-RPC's, google.rpc.Status's, or a bare message), after a colon. */
function errorWords(json: unknown): string {
  if (!isJsonObject(json)) return '';
  const error = json['error'];
  const words = isJsonObject(error) ? error['message'] : typeof error === 'string' ? error : json['message'];
  return typeof words === 'string' && words !== '' ? `: ${words.slice(0, 300)}` : '';
}

/** One event's data from the endpoint's stream: a JSON-RPC response holding a stream response, or (HTTP+JSON) the stream response itself. */
export function readEvent(iface: EndpointInterface, data: string): RemoteEvent {
  const json = parsed(Buffer.from(data, 'utf8'));
  const legacy = iface.protocol === 'JSONRPC/0.3';
  if (iface.protocol !== 'HTTP+JSON/1.0' && isJsonObject(json) && isJsonObject(json['error'])) {
    return { kind: 'refused', code: Number(json['error']['code']), message: String(json['error']['message'] ?? '') };
  }
  const result = iface.protocol === 'HTTP+JSON/1.0' ? json : isJsonObject(json) ? json['result'] : undefined;
  return (
    (isJsonObject(result) && changeOf(result, legacy)) ||
    resultOf(result, legacy) || { kind: 'transient', reason: 'an event that is not an A2A stream response' }
  );
}

/** What the endpoint pushed to the hub: a stream response (1.0) or the task itself (0.3's senders). */
export function readPushed(iface: EndpointInterface, body: unknown): RemoteEvent {
  const legacy = iface.protocol === 'JSONRPC/0.3';
  return (
    (isJsonObject(body) && changeOf(body, legacy)) ||
    resultOf(body, legacy) || { kind: 'refused', code: 400, message: 'the body is not an A2A task or stream response' }
  );
}

/** A status or artifact update, in either version's shape. */
function changeOf(result: JsonObject, legacy: boolean): RemoteEvent | undefined {
  const status = isJsonObject(result['statusUpdate'])
    ? result['statusUpdate']
    : result['kind'] === 'status-update'
      ? result
      : undefined;
  if (status) {
    const inner = isJsonObject(status['status']) ? status['status'] : {};
    const message = inner['message'];
    return Object.assign(
      { kind: 'status' as const, state: typeof inner['state'] === 'string' ? parseState(inner['state']) : undefined },
      isJsonObject(message) ? { statusMessage: (legacy ? messageIn(message) : message) as Loose } : {},
    );
  }
  const update = isJsonObject(result['artifactUpdate'])
    ? result['artifactUpdate']
    : result['kind'] === 'artifact-update'
      ? result
      : undefined;
  if (!update || !isJsonObject(update['artifact'])) return undefined;
  const artifact = update['artifact'];
  return {
    kind: 'artifact',
    artifact:
      legacy && Array.isArray(artifact['parts'])
        ? Object.assign({}, artifact, { parts: artifact['parts'].map(partIn) })
        : artifact,
    append: update['append'] === true,
    lastChunk: update['lastChunk'] === true,
  };
}

/** A SendMessage result (`{task}` or `{message}`), a Task itself, or a 0.3 result (`kind`). */
function resultOf(result: unknown, legacy: boolean): RemoteAnswer | undefined {
  if (!isJsonObject(result)) return undefined;
  if (isJsonObject(result['task'])) return taskAnswer(result['task'], false);
  if (isJsonObject(result['message'])) return { kind: 'message', message: result['message'] };
  const kind = result['kind'];
  if (kind === 'message' || (kind === undefined && Array.isArray(result['parts']))) {
    return { kind: 'message', message: (legacy || kind === 'message' ? messageIn(result) : result) as Loose };
  }
  if (kind === 'task' || isJsonObject(result['status'])) return taskAnswer(result, legacy || kind === 'task');
  return undefined;
}

function taskAnswer(task: JsonObject, legacy: boolean): RemoteAnswer | undefined {
  if (typeof task['id'] !== 'string') return undefined;
  const status = isJsonObject(task['status']) ? task['status'] : {};
  const message = status['message'];
  const artifacts = Array.isArray(task['artifacts']) ? task['artifacts'].filter(isJsonObject) : [];
  const remote: RemoteTask = {
    id: task['id'],
    state: typeof status['state'] === 'string' ? parseState(status['state']) : undefined,
    artifacts: legacy
      ? artifacts.map((a) =>
          Object.assign({}, a, { parts: Array.isArray(a['parts']) ? a['parts'].map(partIn) : a['parts'] }),
        )
      : artifacts,
  };
  if (typeof task['contextId'] === 'string') remote.contextId = task['contextId'];
  if (isJsonObject(message)) remote.statusMessage = (legacy ? messageIn(message) : message) as Loose;
  return { kind: 'task', task: remote };
}
