/**
 * The media types an agent takes in and gives out (its profile's inputModes and outputModes; the
 * Agent Card's defaultInputModes and defaultOutputModes), and the check of a message's parts
 * against them: a part the agent cannot take is refused (A2A's ContentTypeNotSupportedError).
 */
import { z } from 'zod';
import type { Message, Part } from '../a2a/types.js';
import { HubError } from '../errors/hub-error.js';
import type { AgentRecord, PartsCheck } from '../store/store.js';

export const DEFAULT_MODES: readonly string[] = ['text/plain', 'application/json'];
export const MAX_MODES = 20;

/** type/subtype, either of them `*` (`*\/*`, `image/*`), in lower case as the agent wrote it. */
const MODE_PATTERN = /^([a-z0-9][a-z0-9!#$&^_.+-]{0,62}|\*)\/([a-z0-9][a-z0-9!#$&^_.+-]{0,62}|\*)$/;

export const modeList = z
  .array(
    z
      .string()
      .trim()
      .toLowerCase()
      .regex(MODE_PATTERN, 'must be a media type such as text/plain, image/* or */* (no parameters)'),
  )
  .min(1, 'must name at least one media type (leave it out for the defaults, text/plain and application/json)')
  .max(MAX_MODES, `must hold at most ${MAX_MODES} media types`)
  .transform((modes) => [...new Set(modes)]);

export const inputModesOf = (agent: Pick<AgentRecord, 'inputModes'>): readonly string[] =>
  agent.inputModes ?? DEFAULT_MODES;
export const outputModesOf = (agent: Pick<AgentRecord, 'outputModes'>): readonly string[] =>
  agent.outputModes ?? DEFAULT_MODES;

/** A part's media type: its own, else text for a text part and JSON for a data part; a file part without one has none to check. */
export function partMediaType(part: Part): string | undefined {
  if (part.mediaType) return part.mediaType.split(';')[0]!.trim().toLowerCase();
  if (part.text !== undefined) return 'text/plain';
  if (part.data !== undefined) return 'application/json';
  return undefined;
}

/** The refusal of part `index` of `field`, of media type `type`, which `who` (taking `modes`) does not take. */
export function partRefused(
  index: number,
  type: string,
  modes: readonly string[],
  who: string,
  field: string,
): HubError {
  return new HubError(
    'CONTENT_TYPE_NOT_SUPPORTED',
    `${field}[${index}] is ${type}, which ${who} does not take: it takes ${modes.join(', ')}`,
    {
      hint: `Send the content as one of ${modes.join(', ')} (see defaultInputModes on ${who}'s agent card)`,
      meta: { field: `${field}[${index}]`, mediaType: type, inputModes: modes.join(',') },
    },
  );
}

/** What a task write checks of its messages' parts against the agent they go to (TaskWrite.takes): the store reads its modes. */
export function partsCheck(agent: string, messages: readonly Message[]): PartsCheck {
  const mediaTypes: (string | null)[] = [];
  // Loops, not flatMap: this runs for every message sent, and flatMap's builtin is slow on small arrays.
  for (const m of messages) for (const p of m.parts) mediaTypes.push(partMediaType(p) ?? null);
  return { agent, mediaTypes, defaults: DEFAULT_MODES };
}
