/** An agent's public profile as the REST door and the directory show it. */
import type { AgentRecord } from '../store/store.js';
import { CARD_PATH } from '../a2a/card-path.js';
import { inputModesOf, outputModesOf } from './media-modes.js';
import { isoTime } from '../wire/iso-time.js';

/** `base` is the hub's base URL as the caller reaches it; `endpoint: false` leaves the agent's own endpoint out (lists). */
export const publicProfile = (agent: AgentRecord, base: string, show: { endpoint: boolean } = { endpoint: true }) => ({
  handle: agent.handle,
  agentId: agent.id,
  ...(agent.name ? { name: agent.name } : {}),
  ...(agent.description ? { description: agent.description } : {}),
  ...(show.endpoint && agent.endpoint ? { endpoint: agent.endpoint } : {}),
  ...(agent.skills ? { skills: agent.skills } : {}),
  ...(agent.tags ? { tags: agent.tags } : {}),
  inputModes: inputModesOf(agent),
  outputModes: outputModesOf(agent),
  ...(agent.operator ? { operator: agent.operator } : {}),
  ...(agent.paused ? { paused: { at: isoTime(agent.paused.at), by: agent.paused.by } } : {}),
  createdAt: isoTime(agent.createdAt),
  a2a: `${base}agents/${agent.handle}/`,
  card: `${base}agents/${agent.handle}/${CARD_PATH}`,
});
