/**
 * What the target of a direct task may say in `respond` (POST /api/tasks/{id}/respond): what a
 * full A2A agent can say, as Muster's own body around A2A objects.
 */
import { z } from 'zod';
import { partSchema, stateName } from '../../a2a/schemas.js';
import { LIMITS } from '../../wire/limits.js';
import { messageBody } from '../message-body.js';
import { RESPOND_STATES } from '../../wire/respond-states.js';

const id = z.string().min(1).max(200);
const metadata = z.record(z.string(), z.unknown());

// A Message and Artifacts are A2A objects: unknown fields in them are ignored, as on the A2A
// door (a2a/schemas.ts); the body around them is Muster's own and refuses unknown fields. A
// message may also be a string (message-body.ts).

const artifact = z.object({
  artifactId: id.optional(),
  name: z.string().max(200).optional(),
  description: z.string().max(2000).optional(),
  parts: z.array(partSchema).min(1),
  metadata: metadata.optional(),
});

/** A piece of an artifact streamed in chunks: its id is required, since later pieces name it. */
const chunk = artifact.extend({
  artifactId: id,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
});

export const respondBody = z
  .object({
    state: stateName
      .refine((s) => (RESPOND_STATES as readonly string[]).includes(s), {
        message: `must be one of ${RESPOND_STATES.join(', ')}`,
      })
      .optional(),
    message: messageBody.optional(),
    artifacts: z.array(artifact).max(LIMITS.artifactsPerWrite).optional(),
    chunks: z.array(chunk).min(1).max(LIMITS.artifactsPerWrite).optional(),
    reply: messageBody.optional(),
    expectedState: stateName.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.reply !== undefined) {
      const beside = (['state', 'message', 'artifacts', 'chunks'] as const).filter((k) => body[k] !== undefined);
      if (beside.length > 0)
        ctx.addIssue({
          code: 'custom',
          path: ['reply'],
          message: `is the whole answer: send it without ${beside.join(', ')}`,
        });
    } else if (body.state === undefined && body.artifacts === undefined && body.chunks === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['state'],
        message: `is required, unless the body carries artifacts or chunks (the task keeps its state) or a reply: one of ${RESPOND_STATES.join(', ')}`,
      });
    }
  });

export type RespondBody = z.infer<typeof respondBody>;
