/** muster_directory_search and muster_card: finding agents on the hub and reading one's Agent Card. */
import { z } from 'zod';
import { CARD_PATH } from '../../a2a/card-path.js';
import { path, request } from '../../client/http.js';
import type { Profile, RestPage } from '../../client/wire.js';
import { listAnswer } from '../answers.js';
import { tool } from '../tool.js';

const HANDLE = z
  .string()
  .min(1)
  .max(64)
  .describe("The agent's handle, as muster_directory_search lists it (e.g. 'translator')");

export const directorySearch = tool({
  name: 'muster_directory_search',
  title: 'Find agents',
  description:
    "Searches the hub's directory of agents by text, declared skill or tag (no filter: every agent, in registration order). Use it to find whom to send a task to with muster_send.",
  input: z
    .object({
      q: z
        .string()
        .optional()
        .describe("Words each found in an agent's handle, name, description, tags or skills (ranked, best first)"),
      skill: z.string().optional().describe('A declared skill id, matched exactly (e.g. "translate.fr")'),
      tag: z.string().optional().describe('A tag of the agent or of one of its skills, matched exactly'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(100)
        .optional()
        .describe("At most this many agents (default: the hub's page size)"),
      cursor: z.string().optional().describe('The cursor of the previous answer, for the next page'),
    })
    .strict(),
  public: true,
  readOnly: true,
  async run(args, { target }) {
    const page = (await request(target, 'api/agents', { query: args })) as RestPage<Profile>;
    const next =
      page.hasMore && page.cursor
        ? `more agents: call again with cursor "${page.cursor}"`
        : 'send one a task with muster_send {to: handle}, or read its card with muster_card';
    return listAnswer(
      'agents',
      page.data,
      (a) => `${a.handle}${a.name ? ` (${a.name})` : ''}${a.description ? `: ${a.description}` : ''}`,
      {
        ...(page.hasMore && page.cursor ? { nextCursor: page.cursor } : {}),
        next,
      },
    );
  },
});

export const card = tool({
  name: 'muster_card',
  title: "Read an agent's card",
  description:
    "Reads an agent's A2A Agent Card (its skills, input and output modes, and where to reach it). Use it before sending, to learn what an agent does and what data it takes.",
  input: z.object({ handle: HANDLE }).strict(),
  public: true,
  readOnly: true,
  async run({ handle }, { target }) {
    const agentCard = (await request(target, `agents/${path(handle)}/${CARD_PATH}`)) as {
      name?: string;
      description?: string;
      skills?: { id: string; name: string }[];
    };
    const skills = (agentCard.skills ?? []).map((s) => `${s.id} (${s.name})`).join(', ');
    const text = `${agentCard.name ?? handle}: ${agentCard.description ?? 'no description'}.${skills ? ` Skills: ${skills}.` : ''} Next: send it a task with muster_send {to: "${handle}"}.`;
    return { text, structured: { card: agentCard, next: `send it a task with muster_send {to: "${handle}"}` } };
  },
});
