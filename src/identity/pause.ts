import { HubError } from '../errors/hub-error.js';
import type { AgentPaused } from '../store/store.js';
import { isoTime } from '../wire/iso-time.js';

/**
 * The refusal of a new direct task to a paused agent (the store's AgentPaused): when, and by whom
 * (its operator or the admin), it was paused. Nothing was stored (no task, no receipt, no quota charge).
 */
export function pausedRefusal({ agent }: AgentPaused): HubError {
  const pause = agent.paused;
  const at = isoTime(pause.at);
  const by = pause.by === 'admin' ? 'the admin' : `its operator${agent.operator ? ` '${agent.operator}'` : ''}`;
  return new HubError(
    'AGENT_PAUSED',
    `Agent '${agent.handle}' was paused by ${by} at ${at}: it takes no new tasks until it is resumed`,
    {
      hint: 'Try again later; tasks it already has are unaffected',
      meta: { pausedAt: at, pausedBy: pause.by },
    },
  );
}
