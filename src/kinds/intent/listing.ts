/**
 * A space's intents as a REST page: claimable ones highest priority first, then oldest (what a
 * worker takes next; the store's rank order, the rank being the priority); any other filter
 * latest update first, as every task list. Both are one keyset page of the store. And the intents
 * a worker holds a live lease on, in every space, latest update first: the same page.
 */
import { z } from 'zod';
import type { Caller } from '../../identity/caller.js';
import { stateFilter } from '../../hub/mailbox.js';
import type { RestRead } from '../../hub/kind-module.js';
import { pageFields } from '../../hub/page-query.js';
import type { StoredTask, TaskPage, TaskRecord, TaskStore } from '../../store/store.js';
import type { View } from '../../hub/view.js';
import { cursorFrom, encodePageToken, encodeRankToken, rankCursorFrom } from '../../paging/page-token.js';
import type { Spaces } from '../../hub/spaces.js';
import { factsOf, INTENT } from './facts.js';
import { isoTime } from '../../wire/iso-time.js';

const intentQuery = z.object({ state: z.string().optional(), ...pageFields }).strict();
export type IntentQuery = z.infer<typeof intentQuery>;
const heldQuery = z
  .object({ worker: z.string().min(1, 'send me (your own agent) or an agent handle'), ...pageFields })
  .strict();
export type HeldQuery = z.infer<typeof heldQuery>;

function summary(task: StoredTask) {
  const { record } = task;
  const facts = factsOf(task);
  return {
    id: record.id,
    space: record.contextId,
    title: facts.title,
    priority: facts.priority,
    state: record.state,
    footprint: facts.footprint,
    ...(record.holder !== undefined ? { worker: record.holder } : {}),
    createdAt: isoTime(record.createdAt),
    updatedAt: isoTime(record.updatedAt),
  };
}

/** A store page as the REST page; `tokenOf` makes the cursor that follows its last intent. */
function restPage(page: TaskPage, tokenOf: (last: TaskRecord) => string) {
  const last = page.tasks.at(-1);
  return {
    data: page.tasks.map(summary),
    hasMore: page.hasMore,
    ...(page.hasMore && last ? { cursor: tokenOf(last.record) } : {}),
  };
}

export class IntentListing {
  constructor(
    private readonly store: Pick<TaskStore, 'listTasks'>,
    private readonly spaces: Spaces,
    private readonly view: View,
    private readonly clock: () => number,
  ) {}

  /**
   * A claimable page's cursor holds the last intent's place (its priority, age and id), not the
   * intent: it still holds when that intent was claimed since.
   */
  async page(space: string, query: IntentQuery) {
    await this.spaces.require(space);
    const scope = this.view.heldAt({ kind: 'space', name: space }, [INTENT]);
    const limit = query.limit ?? 20;
    const state = query.state ?? 'claimable';
    const filters = [scope, state];
    const read = { scope, limit, historyLength: 0, includeArtifacts: false };
    if (state === 'claimable') {
      const page = await this.store.listTasks({
        ...read,
        states: ['TASK_STATE_SUBMITTED'],
        ...rankCursorFrom(query.cursor, filters, 'cursor'),
      });
      return restPage(page, (last) => encodeRankToken(last, filters));
    }
    const states = stateFilter(state, ['claimable']);
    const page = await this.store.listTasks({
      ...read,
      ...(states ? { states } : {}),
      ...cursorFrom(query.cursor, filters, 'cursor'),
    });
    return restPage(page, (last) => encodePageToken(last, filters));
  }

  /** The intents whose lease `worker` holds now (the view says who may ask, and what `me` is). */
  async held(caller: Caller, query: HeldQuery) {
    const scope = this.view.heldScope(caller, query.worker, [INTENT]);
    const filters = [scope, 'held'];
    const page = await this.store.listTasks({
      scope,
      heldAfter: this.clock(),
      limit: query.limit ?? 20,
      historyLength: 0,
      includeArtifacts: false,
      ...cursorFrom(query.cursor, filters, 'cursor'),
    });
    return restPage(page, (last) => encodePageToken(last, filters));
  }
}

/** `GET /api/spaces/{name}/intents`: a worker's page of a space's intents; it needs no token. */
export const intentsPage = (listing: IntentListing): RestRead<IntentQuery> => ({
  path: '/api/spaces/:name/intents',
  query: intentQuery,
  answer: ({ params, query }) => listing.page(params['name']!, query),
});

/** `GET /api/intents?worker=me`: the intents a worker holds, in every space; it needs a token. */
export const heldIntentsPage = (listing: IntentListing): RestRead<HeldQuery> => ({
  path: '/api/intents',
  query: heldQuery,
  answer: async ({ caller, query }) => listing.held(await caller(), query),
});
