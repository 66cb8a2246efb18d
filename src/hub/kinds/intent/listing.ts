/**
 * A space's intents as a REST page: claimable ones highest priority first, then oldest (what a
 * worker takes next); any other filter latest update first, as every task list.
 */
import { stateFilter } from '../../mailbox.js';
import { readPages } from '../../pages.js';
import type { Store, StoredTask, TaskScope } from '../../../store/store.js';
import type { View } from '../../view.js';
import { cursorFrom, decodePageToken, encodePageToken } from '../../page-token.js';
import type { Spaces } from '../../spaces.js';
import { factsOf } from './facts.js';
import { INTENT } from './intent.js';

/** Claimable intents a page is sorted from, at most (the oldest beyond it wait their turn). */
const CLAIMABLE_SCAN = 5_000;

export interface IntentQuery {
  state?: string;
  cursor?: string;
  limit?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

function summary(task: StoredTask) {
  const { record } = task;
  const facts = factsOf(task);
  return {
    id: record.id,
    title: facts.title,
    priority: facts.priority,
    state: record.state,
    footprint: facts.footprint,
    ...(facts.worker !== undefined ? { worker: facts.worker } : {}),
    createdAt: iso(record.createdAt),
    updatedAt: iso(record.updatedAt),
  };
}

const byClaimOrder = (a: StoredTask, b: StoredTask) =>
  factsOf(b).priority - factsOf(a).priority || a.record.createdAt - b.record.createdAt || (a.record.id < b.record.id ? -1 : 1);

export class IntentListing {
  constructor(
    private readonly store: Store,
    private readonly spaces: Spaces,
    private readonly view: View,
  ) {}

  async page(space: string, query: IntentQuery) {
    await this.spaces.require(space);
    const scope = this.view.heldAt({ kind: 'space', name: space }, [INTENT]);
    const limit = query.limit ?? 20;
    const state = query.state ?? 'claimable';
    const filters = [scope, state];
    if (state === 'claimable') return this.claimable(scope, limit, query.cursor, filters);
    const states = stateFilter(state, ['claimable']);
    const page = await this.store.listTasks({ scope, ...(states ? { states } : {}), limit, historyLength: 0, includeArtifacts: false, ...cursorFrom(query.cursor, filters, 'cursor') });
    const last = page.tasks.at(-1);
    return { data: page.tasks.map(summary), hasMore: page.hasMore, ...(page.hasMore && last ? { cursor: encodePageToken(last.record, filters) } : {}) };
  }

  /** The cursor keeps the last intent shown (and its place, should it have been claimed since). */
  private async claimable(scope: TaskScope, limit: number, cursor: string | undefined, filters: unknown) {
    const open = await readPages(this.store, { scope, states: ['TASK_STATE_SUBMITTED'], historyLength: 0, includeArtifacts: false }, CLAIMABLE_SCAN);
    open.sort(byClaimOrder);
    const mark = decodePageToken(cursor, filters, 'cursor');
    const found = mark ? open.findIndex((t) => t.record.id === mark.id) : -1;
    const start = mark ? (found >= 0 ? found + 1 : mark.updatedAt) : 0;
    const shown = open.slice(start, start + limit);
    const hasMore = start + limit < open.length;
    const last = shown.at(-1);
    return { data: shown.map(summary), hasMore, ...(hasMore && last ? { cursor: encodePageToken({ updatedAt: start + shown.length, id: last.record.id }, filters) } : {}) };
  }
}
