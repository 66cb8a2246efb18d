import { parseState, TERMINAL_STATES } from '../a2a/states.js';
import { TASK_STATES, type TaskState } from '../a2a/types.js';
import { invalidParams } from '../errors/hub-error.js';
import type { Caller } from '../identity/caller.js';
import type { Store } from '../store/store.js';
import { cursorFrom, encodePageToken } from '../paging/page-token.js';
import type { View } from './view.js';
import { isoTime } from '../wire/iso-time.js';

/** An agent's REST inbox and sent lists: its direct tasks with the counterparty and the last message. */
export class Mailboxes {
  constructor(
    private readonly store: Pick<Store, 'listTasks' | 'getAgent'>,
    private readonly view: View,
  ) {}

  /** REST inbox/sent pages: one agent's received or sent direct tasks with counterparty and last message (`agent`: whose, for its operator or the admin). */
  async page(
    caller: Caller,
    box: 'inbox' | 'sent',
    query: { agent?: string; state?: string; cursor?: string; limit?: number },
  ) {
    const scope = this.view.mailboxScope(caller, box, query.agent);
    const limit = query.limit ?? 20;
    const states = stateFilter(query.state ?? 'open');
    const filters = [scope, query.state ?? 'open'];
    const page = await this.store.listTasks({
      scope,
      states,
      limit,
      historyLength: 1,
      includeArtifacts: false,
      ...cursorFrom(query.cursor, filters, 'cursor'),
    });
    const names = new Map<string, string | undefined>();
    const data = [];
    for (const { record, history } of page.tasks) {
      const other = (box === 'inbox' ? record.sender : record.target) ?? '';
      if (!names.has(other)) names.set(other, (await this.store.getAgent(other))?.name);
      const name = names.get(other);
      data.push({
        id: record.id,
        contextId: record.contextId,
        state: record.state,
        from: record.sender,
        to: record.target,
        createdAt: isoTime(record.createdAt),
        updatedAt: isoTime(record.updatedAt),
        artifactCount: record.artifactCount,
        counterparty: name === undefined ? { handle: other } : { handle: other, name },
        ...(history[0] ? { lastMessage: history[0] } : {}),
      });
    }
    const last = page.tasks[page.tasks.length - 1];
    return {
      data,
      hasMore: page.hasMore,
      ...(page.hasMore && last ? { cursor: encodePageToken(last.record, filters) } : {}),
    };
  }
}

/**
 * A REST list's `state` filter as the states it keeps: `open` (not terminal), `all` (undefined:
 * no filter) or one state in either spelling. `more` names a list's own words, for the hint.
 */
export function stateFilter(state: string, more: readonly string[] = []): TaskState[] | undefined {
  if (state === 'all') return undefined;
  if (state === 'open') return TASK_STATES.filter((s) => !TERMINAL_STATES.has(s));
  const parsed = parseState(state);
  if (!parsed)
    throw invalidParams(
      'state',
      `unknown state '${state}'`,
      `Use ${[...more, 'open', 'all'].join(', ')}, or a state such as working or TASK_STATE_WORKING`,
    );
  return [parsed];
}
