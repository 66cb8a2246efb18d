/**
 * What an attached command prints on stdout, checked before it goes to the respond route
 * (POST /api/tasks/{id}/respond; docs/relay.md has the schema). The route checks the parts,
 * chunks and reply in depth; here only the shape is checked, so a script's mistake becomes a
 * FAILED answer that says what was wrong, and never stops `muster attach`.
 */
import { z } from 'zod';

const STATES = ['completed', 'working', 'input-required', 'failed', 'rejected'] as const;
const stateName = z
  .string()
  .transform((s) =>
    s
      .toLowerCase()
      .replace(/^task_state_/, '')
      .replace(/_/g, '-'),
  )
  .refine((s): s is (typeof STATES)[number] => (STATES as readonly string[]).includes(s), {
    message: `must be one of ${STATES.join(', ')} (or TASK_STATE_COMPLETED, …)`,
  });
const parts = z.array(z.record(z.string(), z.unknown())).min(1);
const withParts = z.object({ parts }).passthrough();

const answerSchema = z
  .object({
    state: stateName.optional(),
    message: withParts.optional(),
    artifacts: z.array(withParts).optional(),
    chunks: z
      .array(
        z
          .object({
            artifactId: z.string().min(1),
            parts,
            append: z.boolean().optional(),
            lastChunk: z.boolean().optional(),
          })
          .passthrough(),
      )
      .optional(),
    reply: withParts.optional(),
  })
  .strict()
  .refine((a) => a.state !== undefined || a.reply !== undefined, {
    message: 'needs a "state" (or, for a new task, a "reply")',
  });

export type Answer = z.infer<typeof answerSchema>;

/** The respond body for a command's stdout, or why it is not an answer. */
export function parseAnswer(
  stdout: string,
  opensTask: boolean,
): { body: Record<string, unknown> } | { problem: string } {
  const text = stdout.trim();
  if (text === '') return { problem: 'the command printed no answer on stdout' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { problem: `the command's stdout is not JSON (${(e as Error).message})` };
  }
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length ? `"${issue.path.join('.')}" ` : '';
    return { problem: `the command's answer is not valid: ${at}${issue.message}` };
  }
  if (parsed.data.reply && !opensTask)
    return { problem: 'the command\'s answer is not valid: "reply" answers only a new task, not a follow-up' };
  const { state, ...rest } = parsed.data;
  return { body: state === undefined ? rest : { state, ...rest } };
}

/** The FAILED answer that reports what went wrong with the command. */
export const failedAnswer = (why: string): Record<string, unknown> => ({
  state: 'failed',
  message: { parts: [{ text: `muster attach: ${why}`.slice(0, 2000) }] },
});
