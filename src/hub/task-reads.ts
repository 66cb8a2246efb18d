/**
 * Task reads: a task (GetTask), a page of tasks (ListTasks) and a task followed (SubscribeToTask),
 * each as the caller may see it. The writes read through here too, so a task is checked and
 * presented one way whichever call reads it.
 */
import type { ListTasksParams, ListTasksResult, Task, TaskState } from '../a2a/types.js';
import { uncheckedToken } from '../identity/caller.js';
import type { Quotas } from '../identity/quotas.js';
import type { GetOptions, Store, StoredTask } from '../store/store.js';
import type { Actor } from './actor.js';
import type { FollowOptions, Following, Subscription } from './following.js';
import { cursorFrom, encodePageToken } from '../paging/page-token.js';
import { storeRefusal } from './refusals.js';
import type { RenderOptions, View } from './view.js';

/** A task read whole: every artifact and all of its history. */
export const FULL = { includeArtifacts: true } as const;

export const trimHistory = (task: Task, historyLength: number | undefined): Task => {
  if (historyLength === undefined || !task.history) return task;
  if (historyLength > 0 && task.history.length <= historyLength) return task; // nothing to trim: no copy
  const { history, ...rest } = task;
  const kept = historyLength === 0 ? [] : history.slice(-historyLength);
  return kept.length > 0 ? Object.assign(rest, { history: kept }) : rest;
};

export interface TaskReadsDeps {
  store: Pick<Store, 'getTask' | 'listTasks' | 'entryOf' | 'entriesBy' | 'tasksThatWrote'>;
  view: View;
  following: Following;
  /** With the clock, turns the store's refusal of a caller's token into the hub's error. */
  quotas: Quotas;
  clock: () => number;
}

export class TaskReads {
  constructor(private readonly deps: TaskReadsDeps) {}

  async get(actor: Actor, id: string, historyLength?: number): Promise<Task> {
    const options = historyLength === undefined ? FULL : { includeArtifacts: true, historyLength };
    const task = this.visible(actor, await this.read(actor, id, options), id);
    return this.present(actor, task, options);
  }

  /** Follows a task the caller may see (see Following.subscribe). */
  async subscribe(actor: Actor, id: string, options: FollowOptions): Promise<Subscription> {
    return this.deps.following.subscribe(
      actor,
      this.visible(actor, await this.deps.store.getTask(id, FULL), id),
      options,
    );
  }

  /**
   * A page of the tasks the caller may list at its door; with `kinds`, only tasks of those kinds;
   * with `states`, only tasks in one of them (a door's own filter, beside `params.status`).
   */
  async list(
    actor: Actor,
    params: ListTasksParams,
    kinds?: readonly string[],
    states?: readonly TaskState[],
  ): Promise<ListTasksResult> {
    const { view, store } = this.deps;
    const pageSize = params.pageSize ?? 50;
    const scope = view.listScope(actor.caller, actor.door, kinds);
    if (!scope) return { tasks: [], nextPageToken: '', pageSize, totalSize: 0 };
    const filters = [scope, params.status, params.contextId, params.statusTimestampAfter, ...(states ? [states] : [])];
    const page = await store.listTasks({
      scope,
      ...(params.status ? { states: [params.status] } : states ? { states } : {}),
      ...(params.contextId !== undefined ? { contextId: params.contextId } : {}),
      ...(params.statusTimestampAfter ? { statusAtOrAfter: Date.parse(params.statusTimestampAfter) } : {}),
      ...cursorFrom(params.pageToken, filters, 'pageToken'),
      limit: pageSize,
      ...(params.historyLength !== undefined ? { historyLength: params.historyLength } : {}),
      includeArtifacts: params.includeArtifacts ?? false,
    });
    const last = page.tasks[page.tasks.length - 1];
    const options = {
      includeArtifacts: params.includeArtifacts ?? false,
      ...(params.historyLength !== undefined ? { historyLength: params.historyLength } : {}),
    };
    return {
      tasks: page.tasks.map((t) => view.render(t, options)),
      nextPageToken: page.hasMore && last ? encodePageToken(last.record, filters) : '',
      pageSize,
      totalSize: page.total,
    };
  }

  /**
   * The tasks of a context (a space's) whose work wrote `path` (Change.wrote), latest first, at
   * most `limit`, each whole as the caller reads it at its door: one walk of the store's paths
   * index, then each task read by id (a task the door does not show is left out).
   */
  async wrote(
    actor: Actor,
    contextId: string,
    path: string,
    limit: number,
  ): Promise<{ tasks: Task[]; hasMore: boolean }> {
    const { store, view } = this.deps;
    const ids = [...new Set(await store.tasksThatWrote(contextId, path, limit + 1))];
    const read = await Promise.all(ids.slice(0, limit).map((id) => store.getTask(id, FULL)));
    const shown = read.filter(
      (t): t is StoredTask => t !== undefined && view.shows(actor.caller, actor.door, t.record),
    );
    return { tasks: shown.map((t) => view.render(t, FULL)), hasMore: ids.length > limit };
  }

  /**
   * The tasks an agent has its own entry on (its contributions, its answers), latest entry first,
   * at most `limit`, each as the agent reads it whole, its receipt included; none for any other caller.
   */
  async ownEntries(actor: Actor, limit: number): Promise<Task[]> {
    if (actor.caller.kind !== 'agent') return [];
    const { store, view } = this.deps;
    const entries = await store.entriesBy(actor.caller.handle, limit);
    const tasks = await Promise.all(entries.map((entry) => store.getTask(entry.taskId, FULL)));
    return entries.flatMap((entry, i) => {
      const task = tasks[i];
      if (!task || !view.shows(actor.caller, actor.door, task.record)) return [];
      return [view.render(task, FULL, view.entryReader(actor.caller, task.record) ? entry : undefined)];
    });
  }

  /** Reads a task for a request, checking its caller's token in the same read when it is still to be checked. */
  async read(actor: Actor, id: string, options: GetOptions): Promise<StoredTask | undefined> {
    const token = uncheckedToken(actor.caller);
    if (!token) return this.deps.store.getTask(id, options);
    const task = await this.deps.store
      .getTask(id, Object.assign({ liveToken: token.hash }, token.gate ? { tokenGate: token.gate } : {}, options))
      .catch((e: unknown) => {
        throw storeRefusal(e, this.deps.quotas, this.deps.clock());
      });
    token.checked = true;
    return task;
  }

  /** The task, if the caller may see it at its door; else "not found", as if it did not exist (View.visible). */
  visible(actor: Actor, task: StoredTask | undefined, id: string): StoredTask {
    return this.deps.view.visible(actor.caller, actor.door, task, id);
  }

  /** The task as this caller reads it whole: with their own entry's receipt, when the kind shows one back. */
  async present(actor: Actor, task: StoredTask, options: RenderOptions = FULL): Promise<Task> {
    const author = this.deps.view.entryReader(actor.caller, task.record);
    const own = author === undefined ? undefined : await this.deps.store.entryOf(task.record.id, author);
    return this.deps.view.render(task, options, own);
  }
}
