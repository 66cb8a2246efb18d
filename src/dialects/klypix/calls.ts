/**
 * A KLYPIX message as the memory kind takes it. An opening data part `{skill, args}` names a
 * KLYPIX skill and its args: it becomes the memory skill's call, on the caller's own board when a
 * brain skill names no canvas, and a write asks again for malformed connections instead of
 * refusing them (the kind's `askOnError`). A follow-up to a call waiting for input brings what
 * it asked for: a data part (`{skill?, args}` or the args bare), or plain words when one argument
 * is missing (a brief's items when that is `cards`). Free text goes as it is: the kind routes it.
 */
import { isJsonObject, type JsonObject } from '../../a2a/types.js';
import { invalidParams } from '../../errors/hub-error.js';
import { briefItems, briefTitle } from '../../kinds/memory/phrasing.js';
import { ownBoardId } from '../../kinds/memory/skill-specs.js';
import { ARGS, DATA } from '../../wire/skill-call.js';
import { argsIn } from './args.js';
import { ASKED_AGAIN, NOT_OFFERED, SKILL_BY_ID, SKILL_IDS } from './skills.js';

/** What a call waiting for input is waiting for, read from its task (answers.ts pendingOf). */
export interface Waiting {
  /** The memory skill, '' when the opening asked nothing the kind knew. */
  skill: string;
  /** The args it lacks, in the kind's names. */
  missing: string[];
  /** It waits for a confirmation of proposed connections. */
  confirming: boolean;
}

const WRITES = new Set(['make_board', 'remember']);

/** A KLYPIX skill call `{skill, args}` as the memory kind's. */
function callIn(data: JsonObject, handle: string): JsonObject {
  const { skill: id, args = {}, ...extra } = data;
  const first = Object.keys(extra)[0];
  if (first !== undefined)
    throw invalidParams(`${DATA}.${first}`, 'is not a field of a skill call', 'Send {"skill": …, "args": {…}}');
  if (typeof id !== 'string') throw invalidParams(`${DATA}.skill`, 'must be a skill id', `Send one of: ${SKILL_IDS}`);
  const skill = SKILL_BY_ID.get(id);
  if (!skill) {
    const why = NOT_OFFERED[id];
    throw invalidParams(
      `${DATA}.skill`,
      why ? `names a skill this hub does not offer: '${id}' (${why})` : `names no skill of this memory node: '${id}'`,
      `Send one of: ${SKILL_IDS}`,
    );
  }
  if (!isJsonObject(args)) return { skill: skill.native, args }; // the kind refuses it, naming the field
  const native = argsIn(args, ARGS);
  const onBrain = skill.onBrain && native['board'] === undefined ? { board: ownBoardId(handle) } : {};
  return {
    skill: skill.native,
    args: { ...native, ...onBrain },
    ...(WRITES.has(id) ? { askOnError: ASKED_AGAIN } : {}),
  };
}

/** A follow-up's data part as the waiting call takes it: the args it brings, in the kind's names. */
function followUpIn(data: JsonObject, waiting: Waiting): JsonObject {
  const given = isJsonObject(data['args']) ? data['args'] : data;
  if (waiting.confirming) return { confirm: given['confirm'] === true };
  if (!isJsonObject(data['args'])) return argsIn(data, DATA);
  const { skill: _skill, ...args } = given;
  return { args: argsIn(args, ARGS) };
}

/**
 * Plain words that answer what a call is missing: a brief's items for `cards` (titled with them
 * when the title is missing too, as "Make a board: …" is), or the text itself for one other arg.
 */
function wordsIn(text: string, waiting: Waiting): JsonObject | undefined {
  const { missing } = waiting;
  if (missing.includes('cards') && missing.every((m) => m === 'cards' || m === 'title')) {
    const cards = briefItems(text);
    return missing.includes('title') ? { title: briefTitle(cards), cards } : { cards };
  }
  return missing.length === 1 ? { [missing[0]!]: text.trim() } : undefined;
}

/** A message's parts as the memory kind takes them; `fromWords` when plain words became a data part. */
export interface PartsIn {
  parts: unknown;
  fromWords?: true;
}

/**
 * The parts of a message (1.0 JSON, not yet checked) as the memory kind takes them; `waiting`
 * is what the task a follow-up continues is waiting for, if it is.
 */
export function partsIn(parts: unknown, handle: string, waiting: Waiting | undefined): PartsIn {
  if (!Array.isArray(parts) || parts.length === 0) return { parts }; // the request's own check refuses it
  const resumes = waiting !== undefined && waiting.skill !== '';
  if (parts.length === 1 && isJsonObject(parts[0]) && isJsonObject(parts[0]['data'])) {
    const { data, ...part } = parts[0];
    if (resumes) return { parts: [{ ...part, data: followUpIn(data, waiting) }] };
    if ('skill' in data) return { parts: [{ ...part, data: callIn(data, handle) }] };
    return { parts };
  }
  const text = parts.every((p) => isJsonObject(p) && typeof p['text'] === 'string')
    ? parts.map((p) => (p as { text: string }).text).join('\n')
    : undefined;
  const words = resumes && text !== undefined ? wordsIn(text, waiting) : undefined;
  return words ? { parts: [{ data: { args: words } }], fromWords: true } : { parts };
}
