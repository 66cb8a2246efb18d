/**
 * The media types an agent takes in and gives out (its profile's inputModes and outputModes; the
 * Agent Card's defaultInputModes and defaultOutputModes), and the check of a message's parts
 * against them: a part the agent cannot take is refused (A2A's ContentTypeNotSupportedError).
 */
import { z } from 'zod';
import type { Part } from '../a2a/types.js';
import { HubError } from '../errors/hub-error.js';
import { LRUCache } from 'lru-cache';
import type { AgentRecord, StoreEvents } from '../store/store.js';

export const DEFAULT_MODES: readonly string[] = ['text/plain', 'application/json'];
export const MAX_MODES = 20;

/** type/subtype, either of them `*` (`*\/*`, `image/*`), in lower case as the agent wrote it. */
const MODE_PATTERN = /^([a-z0-9][a-z0-9!#$&^_.+-]{0,62}|\*)\/([a-z0-9][a-z0-9!#$&^_.+-]{0,62}|\*)$/;

export const modeList = z
  .array(z.string().trim().toLowerCase().regex(MODE_PATTERN, 'must be a media type such as text/plain, image/* or */* (no parameters)'))
  .min(1, 'must name at least one media type (leave it out for the defaults, text/plain and application/json)')
  .max(MAX_MODES, `must hold at most ${MAX_MODES} media types`)
  .transform((modes) => [...new Set(modes)]);

export const inputModesOf = (agent: Pick<AgentRecord, 'inputModes'>): readonly string[] => agent.inputModes ?? DEFAULT_MODES;
export const outputModesOf = (agent: Pick<AgentRecord, 'outputModes'>): readonly string[] => agent.outputModes ?? DEFAULT_MODES;

/** A part's media type: its own, else text for a text part and JSON for a data part; a file part without one has none to check. */
export function partMediaType(part: Part): string | undefined {
  if (part.mediaType) return part.mediaType.split(';')[0]!.trim().toLowerCase();
  if (part.text !== undefined) return 'text/plain';
  if (part.data !== undefined) return 'application/json';
  return undefined;
}

/** Whether a declared mode (exact, `type/*` or `*\/*`) takes a media type. */
export function modeTakes(mode: string, mediaType: string): boolean {
  if (mode === '*/*' || mode === mediaType) return true;
  return mode.endsWith('/*') && mediaType.startsWith(mode.slice(0, -1));
}

/** Refuses (CONTENT_TYPE_NOT_SUPPORTED) the first part whose media type none of `modes` takes, naming it. */
export function requireAcceptedParts(parts: readonly Part[], modes: readonly string[], who: string, field: string): void {
  parts.forEach((part, i) => {
    const type = partMediaType(part);
    if (type === undefined || modes.some((m) => modeTakes(m, type))) return;
    throw new HubError('CONTENT_TYPE_NOT_SUPPORTED', `${field}[${i}] is ${type}, which ${who} does not take: it takes ${modes.join(', ')}`, {
      hint: `Send the content as one of ${modes.join(', ')} (see defaultInputModes on ${who}'s agent card)`,
      meta: { field: `${field}[${i}]`, mediaType: type, inputModes: modes.join(',') },
    });
  });
}

/** How long a node keeps an agent's input modes when no change is heard (a lost announcement). */
const MODES_KEPT_MS = 5_000;

/**
 * An agent's input modes as every send to it checks them, remembered so a send reads no agent
 * record: forgotten when the store announces a change to the agent (through any node), and after
 * MODES_KEPT_MS in any case.
 */
export function rememberedInputModes(read: (handle: string) => Promise<AgentRecord>, events: Pick<StoreEvents, 'onAgent'>): (handle: string) => Promise<readonly string[]> {
  const kept = new LRUCache<string, readonly string[]>({ max: 10_000, ttl: MODES_KEPT_MS });
  events.onAgent((handle) => kept.delete(handle));
  return async (handle) => {
    const known = kept.get(handle);
    if (known) return known;
    const modes = inputModesOf(await read(handle));
    kept.set(handle, modes);
    return modes;
  };
}
