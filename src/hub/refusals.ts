/** The store's refusals of a task write or read, as the hub's errors (each door then maps those through its own table). */
import { HubError } from '../errors/hub-error.js';
import { notLive } from '../identity/authentication.js';
import type { Quotas } from '../identity/quotas.js';
import { pausedRefusal } from '../identity/pause.js';
import { partRefused } from '../identity/media-modes.js';
import { AgentPaused, PartsRefused, QuotaExceeded, StoreConflict, TokenNotLive } from '../store/store.js';

/** A store refusal as the hub's error (the caller's token, quota, lost race, an entry's rule); anything else passes unchanged. */
export function storeRefusal(e: unknown, quotas: Quotas, now: number): unknown {
  if (e instanceof TokenNotLive) return notLive();
  if (e instanceof AgentPaused) return pausedRefusal(e);
  if (e instanceof PartsRefused) return partRefused(e.index, e.mediaType, e.modes, e.agent, 'message.parts');
  if (e instanceof QuotaExceeded) return quotas.refusal(e, now);
  if (e instanceof StoreConflict && e.what.startsWith('entry-')) return entryRefusal(e.what);
  if (e instanceof StoreConflict && e.what === 'version') {
    return new HubError('CONFLICT', 'The task kept changing while this request was applied; nothing was done', {
      hint: 'Retry the request',
    });
  }
  if (e instanceof StoreConflict && e.what === 'open-key') {
    // Creates answer the key's holder as a twin (open-keys.ts); only a change that reopens a task whose key was taken meanwhile ends here.
    return new HubError('CONFLICT', 'Another open task is already this work', {
      hint: 'Read the open tasks of its context and follow that one',
    });
  }
  return e;
}

/** The store refused an entry under its rule (see Store.addEntry). */
function entryRefusal(what: StoreConflict['what']): HubError {
  if (what === 'entry-exists')
    return new HubError('ALREADY_CONTRIBUTED', undefined, {
      hint: 'Read your receipt with GetTask; an entry cannot be changed or sent twice',
    });
  if (what === 'entry-full') return new HubError('TASK_FULL', undefined, { hint: 'Look for another open task' });
  return new HubError('UNSUPPORTED_OPERATION', 'The task has closed; it takes no more entries', {
    hint: 'Read the outcome with GetTask',
  });
}
