/**
 * Vorn's respond body: `state` (required), a `message` and `artifacts` whose parts are 0.3 parts
 * (`kind` text, data or file; a file by its `uri`, never inline bytes). It is read here, then
 * handed to the direct kind's own respond in the hub's terms: the kind's transitions, limits and
 * compare-and-set decide, as they do for every door.
 */
import { z } from 'zod';
import { partIn } from '../../a2a/legacy.js';
import { parseWith } from '../../a2a/validate.js';
import { LIMITS } from '../../wire/limits.js';

const metadata = z.record(z.string(), z.unknown());

const part = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('text'), text: z.string(), metadata: metadata.optional() }),
    z.object({ kind: z.literal('data'), data: metadata, metadata: metadata.optional() }),
    z.object({
      kind: z.literal('file'),
      file: z.object({
        uri: z.url({ error: 'must be an absolute URL' }),
        name: z.string().optional(),
        mimeType: z.string().optional(),
        bytes: z.never({ error: 'inline file bytes are not taken: send the file by its uri' }).optional(),
      }),
      metadata: metadata.optional(),
    }),
  ],
  { error: 'must be a part of kind text, data or file' },
);

const parts = z
  .array(part)
  .min(1, 'must hold at least one part')
  .max(LIMITS.parts, `must hold at most ${LIMITS.parts} parts`);

const body = z.object({
  state: z.enum(['working', 'input-required', 'completed', 'failed', 'rejected'], {
    error: 'must be one of working, input-required, completed, failed, rejected',
  }),
  message: z.object({ parts, metadata: metadata.optional() }).optional(),
  artifacts: z
    .array(
      z.object({
        artifactId: z.string().min(1).max(200).optional(),
        name: z.string().max(200).optional(),
        description: z.string().max(2000).optional(),
        parts,
        metadata: metadata.optional(),
      }),
    )
    .max(LIMITS.artifactsPerWrite, `must hold at most ${LIMITS.artifactsPerWrite} artifacts`)
    .optional(),
});

/** A Vorn respond body as the direct kind's respond body (kinds/direct/respond-body.ts). */
export function respondIn(input: unknown): Record<string, unknown> {
  const { state, message, artifacts } = parseWith(body, input ?? {});
  const as10 = <T extends { parts: unknown[] }>(holder: T) =>
    Object.assign({}, holder, { parts: holder.parts.map(partIn) });
  return {
    state,
    ...(message ? { message: as10(message) } : {}),
    ...(artifacts ? { artifacts: artifacts.map(as10) } : {}),
  };
}
