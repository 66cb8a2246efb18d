/**
 * A memory call's task as KLYPIX's clients read it (then shaped as A2A 0.3): one artifact, whose
 * parts are the board file first (when the skill answers one and the caller takes its media type)
 * and the result's text and data after; `metadata.skill` names the KLYPIX skill beside Muster's
 * own `metadata.muster`; a call waiting for input says, in KLYPIX's names, the exact data part to
 * send; the history shows the calls as KLYPIX names them. Everything is read from the stored
 * task, so tasks/get answers the same as the send did.
 */
import { taskOut as shape03 } from '../../a2a/legacy.js';
import { isJsonObject, type Artifact, type JsonObject, type Message, type Part, type Task } from '../../a2a/types.js';
import { CONNECT } from '../../kinds/memory/skill-specs.js';
import { argNameOut, argsOut, fieldOut, wordsOut } from './args.js';
import type { Waiting } from './calls.js';
import { KLYPIX_SKILLS, SKILL_BY_NATIVE, SKILL_IDS } from './skills.js';

interface MemoryFacts {
  skill?: string | null;
  pending?: { skill: string; proposal?: unknown[] } | null;
}

const factsOf = (task: Task) => (task.metadata?.['muster'] ?? {}) as MemoryFacts;
const dataIn = (message: Message | undefined): JsonObject | undefined => {
  const data = message?.parts.find((p) => p.data !== undefined)?.data;
  return isJsonObject(data) ? data : undefined;
};
const agentSays = (message: Message, text: string, data: JsonObject): Message => ({
  ...message,
  parts: [{ text }, { data, mediaType: 'application/json' }],
});

/** What a call waiting for input waits for; undefined when it waits for nothing. */
export function waitingOf(task: Task): Waiting | undefined {
  const pending = factsOf(task).pending;
  if (task.status.state !== 'TASK_STATE_INPUT_REQUIRED' || !pending) return undefined;
  const missing = dataIn(task.status.message)?.['missing'];
  return {
    skill: pending.skill,
    missing: Array.isArray(missing) ? (missing as string[]) : [],
    confirming: pending.skill === CONNECT && Array.isArray(pending.proposal),
  };
}

/** The kind's question for missing (or malformed) input, in KLYPIX's names, with the data part to send. */
function askedOut(message: Message, asked: JsonObject): Message {
  const skill = SKILL_BY_NATIVE.get(String(asked['skill']));
  if (!skill) return message;
  const missing = (asked['missing'] as string[]).map(argNameOut);
  const dataPart = { skill: skill.id, args: argsOut(isJsonObject(asked['example']) ? asked['example'] : {}) };
  const wrong = Array.isArray(asked['wrong'])
    ? (asked['wrong'] as { field: string; description: string }[]).map((f) => ({
        field: fieldOut(f.field),
        description: wordsOut(f.description),
      }))
    : undefined;
  const why = wrong ? `${wrong.map((f) => `${f.field} ${f.description}`).join('; ')}. ` : '';
  const text = `${why}${skill.id} needs ${missing.join(' and ')}. Reply with the same taskId and this data part: ${JSON.stringify(dataPart)}`;
  return agentSays(message, text, { skill: skill.id, missing, dataPart, ...(wrong ? { wrong } : {}) });
}

/** The answer to words the kind could not route: the skills, and a data part that calls one. */
function unroutedOut(message: Message): Message {
  const dataPart = KLYPIX_SKILLS.find((s) => s.id === 'recall')!.example;
  const text = `That asks nothing this memory node knows. Send a data part naming a skill, such as ${JSON.stringify(dataPart)} (skills: ${SKILL_IDS}), or ask in words, such as "What do we know about auth?"`;
  return agentSays(message, text, { skills: KLYPIX_SKILLS.map((s) => s.id), dataPart });
}

export function statusMessageOut(message: Message): Message {
  const data = dataIn(message);
  if (data && Array.isArray(data['missing'])) return askedOut(message, data);
  if (data && Array.isArray(data['skills'])) return unroutedOut(message);
  return { ...message, parts: message.parts.map((p) => (p.text === undefined ? p : { ...p, text: wordsOut(p.text) })) };
}

/** A data part the caller sent, as KLYPIX names it. */
function sentDataOut(data: JsonObject): JsonObject {
  const native = typeof data['skill'] === 'string' ? SKILL_BY_NATIVE.get(data['skill']) : undefined;
  const args = isJsonObject(data['args']) ? argsOut(data['args']) : data['args'];
  if (native) return { skill: native.id, args };
  if (args !== undefined) return { args };
  return 'confirm' in data ? data : argsOut(data);
}

const sentOut = (message: Message): Message =>
  message.role !== 'ROLE_USER'
    ? message
    : { ...message, parts: message.parts.map((p) => (isJsonObject(p.data) ? { ...p, data: sentDataOut(p.data) } : p)) };

/** The call's artifacts as one, named by its KLYPIX skill: the board file's part first, then the result's. */
export function artifactsOut(artifacts: readonly Artifact[]): Artifact[] {
  const result = artifacts.find((a) => a.artifactId === 'result');
  if (!result) return [...artifacts];
  const file: Part[] = artifacts.find((a) => a.artifactId === 'board')?.parts ?? [];
  const skill = result.name === undefined ? undefined : SKILL_BY_NATIVE.get(result.name)?.id;
  return [{ ...result, ...(skill ? { name: skill } : {}), parts: [...file, ...result.parts] }];
}

/** The KLYPIX skill a task ran, by its id. */
export const skillOf = (task: Task): string | undefined => {
  const native = factsOf(task).skill;
  return native ? SKILL_BY_NATIVE.get(native)?.id : undefined;
};

/** A task as KLYPIX reads it, still in the 1.0 shape (the stream shapes its events one by one). */
export function klypixTask(task: Task): Task {
  const skill = skillOf(task);
  return {
    ...task,
    status: task.status.message ? { ...task.status, message: statusMessageOut(task.status.message) } : task.status,
    ...(task.history ? { history: task.history.map(sentOut) } : {}),
    ...(task.artifacts ? { artifacts: artifactsOut(task.artifacts) } : {}),
    metadata: { ...task.metadata, ...(skill ? { skill } : {}) },
  };
}

/** A task as KLYPIX's clients get it: A2A 0.3. */
export const taskOut = (task: Task): JsonObject => shape03(klypixTask(task));
