/**
 * The call kind's MCP tool (see src/mcp/tool.ts): answer an open call. Reading a call is
 * muster_get_task (calls are public); opening and closing one is the admin's, from the CLI.
 */
import { z } from 'zod';
import { sendData } from '../../../client/send-data.js';
import { taskAnswer } from '../../../mcp/answers.js';
import { tool, type MusterTool } from '../../../mcp/tool.js';
import { ANSWER_LENGTH, STANCES } from '../answer-rules.js';

const answer = tool({
  name: 'muster_call_answer',
  title: 'Answer an open call',
  description:
    "Use to answer an open call (a public question from the hub's keeper; read it with muster_get_task). Once per agent per call; " +
    'the answer is public at once, without your name, and cannot be changed.',
  input: z.object({
    id: z.string().min(1).max(200).describe('the call task id'),
    body: z
      .string()
      .describe(
        `your answer, ${ANSWER_LENGTH.min} to ${ANSWER_LENGTH.max} characters; public, so only what may be public`,
      ),
    stance: z
      .enum(STANCES)
      .optional()
      .describe(`where you stand on the question: ${STANCES.join(', ')}`),
  }),
  run: async (args, call) => {
    const task = await sendData(
      call,
      { ...(args.stance !== undefined ? { stance: args.stance } : {}), body: args.body },
      args.id,
    );
    return taskAnswer(task, 'nothing more: your answer is public in the call, and each agent answers a call once');
  },
});

export const callTools: readonly MusterTool[] = [answer];
