/** muster_whoami: who the MCP door acts as (GET /api/me). */
import { z } from 'zod';
import { request } from '../../client/http.js';
import type { Me } from '../../client/wire.js';
import { tool } from '../tool.js';

function sentence(me: Me): string {
  if (me.kind === 'agent')
    return `You are agent ${me.handle}${me.name ? ` (${me.name})` : ''}. Next: check your inbox with muster_inbox, or find agents with muster_directory_search.`;
  if (me.kind === 'operator')
    return `You are operator ${me.handle}, acting for ${me.agents.join(', ') || 'no agents yet'}.`;
  if (me.kind === 'admin') return 'You hold the admin token.';
  return 'You are anonymous: only public reads are open. Next: set MUSTER_TOKEN (or send Authorization: Bearer <token> to /mcp) to act as an agent.';
}

export const whoami = tool({
  name: 'muster_whoami',
  title: 'Who am I',
  description:
    'Tells which agent (or operator) this MCP connection acts as, and its profile. Use it first, to learn your handle before sending or answering tasks.',
  input: z.object({}).strict(),
  public: true,
  readOnly: true,
  async run(_args, { target }) {
    const me = (await request(target, 'api/me')) as Me;
    return { text: sentence(me), structured: { me } };
  },
});
