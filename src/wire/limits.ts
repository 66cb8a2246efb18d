import { invalidParams } from '../errors/hub-error.js';
import type { Part } from '../a2a/types.js';

/** What one message (or one artifact) may carry. */
export const LIMITS = {
  bodyBytes: 1024 * 1024,
  parts: 10,
  textChars: 20_000,
  dataPartBytes: 64 * 1024,
  rawBytes: 256 * 1024,
  artifactsPerWrite: 10,
  /** Parts one artifact may gather from its chunks (each write is bounded by parts above). */
  partsPerArtifact: 200,
} as const;

/**
 * One wait on a task (GET /api/tasks/{id}/wait, muster_wait_task), in seconds: the most is under
 * the 60 s an MCP client gives a tool call by default.
 */
export const TASK_WAIT = { defaultSeconds: 30, maxSeconds: 50 } as const;

const KB = (n: number) => `${Math.round(n / 1024)} KB`;

/** Refuses parts over the hub's limits, naming the field (`message.parts[3].data`). */
export function checkParts(parts: readonly Part[], field: string): void {
  if (parts.length > LIMITS.parts) {
    throw invalidParams(
      field,
      `holds ${parts.length} parts; at most ${LIMITS.parts} are allowed`,
      'Split the content over several messages',
    );
  }
  let text = 0;
  parts.forEach((part, i) => {
    text += part.text?.length ?? 0;
    if (part.data !== undefined && Buffer.byteLength(JSON.stringify(part.data)) > LIMITS.dataPartBytes) {
      throw invalidParams(
        `${field}[${i}].data`,
        `is larger than ${KB(LIMITS.dataPartBytes)}`,
        'Send a smaller data part, or a url part pointing at the data',
      );
    }
    if (part.raw !== undefined && Buffer.byteLength(part.raw, 'base64') > LIMITS.rawBytes) {
      throw invalidParams(
        `${field}[${i}].raw`,
        `inline file bytes are larger than ${KB(LIMITS.rawBytes)}`,
        'Send a url part pointing at the file instead',
      );
    }
  });
  if (text > LIMITS.textChars) {
    throw invalidParams(
      field,
      `text parts hold ${text} characters; at most ${LIMITS.textChars} are allowed`,
      'Shorten the text or send it as a file url',
    );
  }
}
