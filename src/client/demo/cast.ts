/**
 * What every demo step works with: the hub, its admin token when there is one, the agents the
 * demo registered, and the transcript. Steps talk to the hub only over HTTP, as any client would.
 */
import { randomBytes } from 'node:crypto';
import { request, type Target } from '../http.js';
import type { Transcript } from './transcript.js';

export interface Agent {
  /** The name the transcript uses: alice, bob, carol. */
  name: string;
  handle: string;
  token: string;
  /** Who this agent is to the client helpers: the hub's base and the agent's token. */
  target: Target;
}

export const AGENT_NAMES = ['alice', 'bob', 'carol'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

export interface Demo {
  /** The hub's base URL, ending in '/'. */
  url: string;
  /** The admin token, when the demo has one (its own hub, or --admin-token). */
  adminToken: string | undefined;
  agents: Record<AgentName, Agent>;
  transcript: Transcript;
  /** How far away the review step sets its deadline, in seconds. */
  reviewDeadlineS: number;
  /** The tasks the steps made, to look at afterwards: what each is, and its id. */
  made: { what: string; id: string }[];
}

/** An anonymous caller of the hub (public reads), or the admin. */
export const anonymous = (demo: Demo): Target => ({ url: demo.url });
export const admin = (demo: Demo): Target => ({ url: demo.url, token: demo.adminToken });

/**
 * Registers the demo's agents. On a hub of its own the demo uses plain names; on an existing hub
 * a random suffix keeps the handles free (a handle is registered once, ever).
 */
export async function registerCast(
  url: string,
  adminToken: string | undefined,
  ownHub: boolean,
  transcript: Transcript,
): Promise<Record<AgentName, Agent>> {
  const suffix = ownHub ? '' : `-${randomBytes(3).toString('hex')}`;
  transcript.section(`Agents register at ${url}api/agents`);
  const agents = {} as Record<AgentName, Agent>;
  for (const name of AGENT_NAMES) {
    const handle = `${name}${suffix}`;
    const displayName = name[0]!.toUpperCase() + name.slice(1);
    // The admin token, when there is one, also works on hubs that run with --registration admin.
    const answer = (await request({ url, token: adminToken }, 'api/agents', {
      body: { handle, name: displayName },
    })) as { handle: string; token: string; a2a: string };
    agents[name] = { name, handle: answer.handle, token: answer.token, target: { url, token: answer.token } };
    transcript.act(name, `registers as ${answer.handle}`, `201, base ${answer.a2a}, a token shown this once`);
  }
  return agents;
}
