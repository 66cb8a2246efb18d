/**
 * Vorn's task shapes, translated from the hub's: a task is A2A 0.3 (`kind`, lower-case states,
 * file parts under `file`), and its metadata adds Vorn's two keys beside the hub's own `muster`:
 * `vorn.job_id`, the job the sender named in its first message (kept there, in the history), and
 * `vorn.forwarding`, what the target's own endpoint answered (the hub's forwarding record).
 */
import { taskOut } from '../../a2a/legacy.js';
import { isJsonObject, type JsonObject, type Task } from '../../a2a/types.js';
import { invalidParams } from '../../errors/hub-error.js';
import { isAgentId } from '../../identity/agent-id.js';
import { trimHistory } from '../../hub/task-reads.js';

export const JOB_ID = 'vorn.job_id';
const FORWARDING = 'vorn.forwarding';

/** The job a task belongs to: as its sender named it in the message that opened it. */
export function jobIdOf(task: Task): string | null {
  const first = task.history?.[0];
  const named = first?.role === 'ROLE_USER' ? first.metadata?.[JOB_ID] : undefined;
  return typeof named === 'string' ? named : null;
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The hub's forwarding record (delivery/forward.ts) in Vorn's snake_case. */
function forwardingOut(record: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(record)) out[snake(key)] = value;
  return out;
}

/** A task as Vorn shows it; `historyLength` trims its history after the job is read from it. */
export function vornTask(task: Task, historyLength?: number): JsonObject {
  const muster = task.metadata?.['muster'];
  const forwarding = isJsonObject(muster) && isJsonObject(muster['forwarding']) ? muster['forwarding'] : undefined;
  const jobId = jobIdOf(task);
  const metadata: JsonObject = Object.assign(
    {},
    task.metadata,
    jobId !== null ? { [JOB_ID]: jobId } : {},
    forwarding ? { [FORWARDING]: forwardingOut(forwarding) } : {},
  );
  return Object.assign(taskOut(trimHistory(task, historyLength)), { metadata });
}

/**
 * What Vorn refuses in a message beside the hub's own limits: inline file bytes (a file is sent
 * by its uri), and a `vorn.job_id` that is not a UUID. `at` names where the parts are.
 */
export function checkVornMessage(message: unknown, at: string): void {
  if (!isJsonObject(message)) return; // the hub's schema names what a message must be
  const parts = Array.isArray(message['parts']) ? message['parts'] : [];
  parts.forEach((part, i) => {
    if (isJsonObject(part) && isJsonObject(part['file']) && part['file']['bytes'] !== undefined)
      throw invalidParams(
        `${at}.parts[${i}].file.bytes`,
        'inline file bytes are not taken: a file is sent by its address',
        'Send {"kind": "file", "file": {"uri": "https://…", "name"?, "mimeType"?}}',
      );
  });
  const jobId = isJsonObject(message['metadata']) ? message['metadata'][JOB_ID] : undefined;
  // A job id is a UUID, as an agent id is: isAgentId takes any.
  if (jobId !== undefined && (typeof jobId !== 'string' || !isAgentId(jobId)))
    throw invalidParams(
      `${at}.metadata.${JOB_ID}`,
      'must be a UUID',
      'Send the job id as a UUID string, or leave it out',
    );
}
