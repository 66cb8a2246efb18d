/**
 * What an agent may say about itself: the profile a PATCH /api/agents/{handle} sets, and its
 * bounds. Every bound keeps a card (which lists the declared skills) and a directory answer (up
 * to 50 agents) small: at most about 20 × 2 kB of skills per agent. docs/identity.md#profiles
 * lists them.
 */
import { z } from 'zod';
import { whenMissing } from '../a2a/zod-issues.js';
import { invalidParams } from '../errors/hub-error.js';
import type { ProfilePatch } from '../store/store.js';
import type { Published } from '../wire/screening.js';
import { modeList } from './media-modes.js';

export const PROFILE_LIMITS = {
  name: 100,
  description: 2000,
  skills: 20,
  skillName: 100,
  skillDescription: 1000,
  skillTags: 10,
  examples: 5,
  example: 500,
  tags: 20,
} as const;

/** A skill id: letters, digits, '.', '_' and '-', 1 to 64, starting with a letter or digit (A2A sets no rule; ids travel in URLs and logs). */
export const SKILL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A tag: one short lower-case word (digits and '-' allowed), so a tag search is an exact match. */
export const TAG_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;

const TAG_RULE = 'must be 1 to 32 characters: lower-case letters, digits and - (starting with a letter or digit)';

/** Refuses the second of two equal values, naming it (`tags[3]`, or `skills[2].id` with `key`). */
const unique =
  <T>(what: string, valueOf: (item: T) => string, key?: string) =>
  (items: readonly T[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const value = valueOf(item);
      if (seen.has(value))
        ctx.addIssue({
          code: 'custom',
          message: `repeats the ${what} '${value}': each must be different`,
          path: key ? [i, key] : [i],
        });
      seen.add(value);
    });
  };

const tag = z.string().regex(TAG_PATTERN, TAG_RULE);
const tagList = (max: number) =>
  z
    .array(tag)
    .max(max, `must hold at most ${max} tags`)
    .superRefine(unique<string>('tag', (t) => t));

const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

const skill = z
  .object({
    id: z
      .string(whenMissing('an id such as summarize-pdf'))
      .regex(
        SKILL_ID_PATTERN,
        "must be 1 to 64 characters: letters, digits, '.', '_' and - (starting with a letter or digit)",
      ),
    name: text(PROFILE_LIMITS.skillName),
    description: text(PROFILE_LIMITS.skillDescription),
    tags: tagList(PROFILE_LIMITS.skillTags).optional(),
    examples: z
      .array(text(PROFILE_LIMITS.example))
      .max(PROFILE_LIMITS.examples, `must hold at most ${PROFILE_LIMITS.examples} examples`)
      .optional(),
  })
  .strict();

export const profilePatchSchema = z
  .object({
    name: text(PROFILE_LIMITS.name).nullable().optional(),
    description: text(PROFILE_LIMITS.description).nullable().optional(),
    skills: z
      .array(skill)
      .max(PROFILE_LIMITS.skills, `must hold at most ${PROFILE_LIMITS.skills} skills`)
      .superRefine(unique<{ id: string }>('skill id', (s) => s.id, 'id'))
      .optional(),
    tags: tagList(PROFILE_LIMITS.tags).optional(),
    inputModes: modeList.nullable().optional(),
    outputModes: modeList.nullable().optional(),
  })
  .strict()
  .refine(
    (p) => Object.values(p).some((v) => v !== undefined),
    'must name at least one of name, description, skills, tags, inputModes and outputModes',
  );

/**
 * Refuses a declared skill whose id the hub itself lists on the agent's card or at its base
 * (direct-task, directory.search, …): two skills of one id on one card would be ambiguous, and
 * renaming the agent's silently would change what it declared. So the agent picks another id.
 */
export function refuseReservedSkillIds(patch: ProfilePatch, reserved: ReadonlySet<string>): void {
  const index = patch.skills?.findIndex((s) => reserved.has(s.id)) ?? -1;
  if (index < 0) return;
  const id = patch.skills![index]!.id;
  throw invalidParams(
    `skills[${index}].id`,
    `'${id}' is a skill the hub itself lists (${[...reserved].sort().join(', ')})`,
    `Name your skill something else, such as '${id}-own'`,
  );
}

/** What a profile publishes (the directory and the agent's card show it to anyone), by field: screened as it is set. */
export const profileTexts = (p: Pick<ProfilePatch, 'name' | 'description' | 'skills' | 'tags'>): Published => ({
  name: p.name,
  description: p.description,
  skills: p.skills,
  tags: p.tags,
});

/** The longest text a directory search takes. */
export const SEARCH_TEXT_MAX = 200;

/**
 * A directory search's filters, the same at both doors (GET /api/agents and the hub's
 * directory.search skill): `q`'s words are found on the store's full-text index
 * (store/agent-profile-rows.ts); `skill` is a declared skill's id, `tag` a tag of the agent or of
 * one of its skills, each matched exactly.
 */
export const searchFields = {
  q: z
    .string()
    .trim()
    .min(1, 'must not be empty: leave it out to match every agent')
    .max(SEARCH_TEXT_MAX, `must be at most ${SEARCH_TEXT_MAX} characters`)
    .optional(),
  skill: z.string().regex(SKILL_ID_PATTERN, "must be a skill id: 1 to 64 letters, digits, '.', '_' and -").optional(),
  tag: tag.optional(),
};

export interface SearchFilters {
  q?: string | undefined;
  skill?: string | undefined;
  tag?: string | undefined;
}

export const isSearch = (f: SearchFilters): boolean =>
  f.q !== undefined || f.skill !== undefined || f.tag !== undefined;
