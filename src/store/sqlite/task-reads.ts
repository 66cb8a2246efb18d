import type { Message } from '../../a2a/types.js';
import { statementCache, type Db } from './database.js';
import { cursorWalks, orderBy } from '../order.js';
import { kindLiteral, OPEN_KEY_HOLDS, recordFromRow, SCOPE_COLUMNS, type TaskRow } from '../rows.js';
import {
  countsByBucket,
  TokenNotLive,
  type ColumnTest,
  type GetOptions,
  type StoredTask,
  type TaskColumn,
  type TaskPage,
  type TaskQuery,
  type TaskScope,
  type TaskStore,
} from '../store.js';
import { quotaStatements } from './quota-charges.js';
import { artifactReads } from './artifact-bodies.js';

type Branch = { where: string; params: Record<string, unknown> };

/**
 * A list is read as index-friendly branches, each walked in order and merged: one or two per
 * scope, and one per state when states are asked for (so an inbox filtered to its open tasks
 * walks the (target, state, …) index once per state instead of filtering the whole inbox), each
 * taken once per walk its order takes after the cursor (order.ts).
 */
function branches(q: TaskQuery): Branch[] {
  const scoped = scopeBranches(q.scope);
  if (!q.states?.length) return scoped;
  return scoped.flatMap((b) =>
    q.states!.map((state, i) => ({
      where: `${b.where} AND state = @s${i}`,
      params: Object.assign({}, b.params, { [`s${i}`]: state }),
    })),
  );
}

/** A scope's branches as conditions on the task row; every value is a parameter named for its branch. */
function scopeBranches(scope: TaskScope): Branch[] {
  return scope.anyOf.map((branch, b) => {
    const params: Record<string, unknown> = {};
    const tests = (Object.entries(branch) as [TaskColumn, ColumnTest][]).map(([column, test]) => {
      const sql = SCOPE_COLUMNS[column];
      if ('set' in test) return `${sql} IS ${test.set ? 'NOT NULL' : 'NULL'}`;
      const name = `b${b}${column}`;
      if ('notIn' in test) {
        test.notIn.forEach((v, i) => (params[`${name}${i}`] = v));
        if (test.notIn.length === 1) return `${sql} IS NOT @${name}0`;
        return `(${sql} IS NULL OR ${sql} NOT IN (${test.notIn.map((_, i) => `@${name}${i}`).join(', ')}))`;
      }
      if (column === 'kind' && test.in.length === 1) return `kind = ${kindLiteral(test.in[0]!)}`;
      test.in.forEach((v, i) => (params[`${name}${i}`] = v));
      return test.in.length === 1
        ? `${sql} = @${name}0`
        : `${sql} IN (${test.in.map((_, i) => `@${name}${i}`).join(', ')})`;
    });
    return { where: tests.length ? tests.join(' AND ') : '1', params };
  });
}

function filters(q: TaskQuery): { sql: string; params: Record<string, unknown> } {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  if (q.contextId !== undefined) {
    parts.push('context_id = @ctx');
    params['ctx'] = q.contextId;
  }
  if (q.statusAtOrAfter !== undefined) {
    parts.push('status_at >= @since');
    params['since'] = q.statusAtOrAfter;
  }
  if (q.heldAfter !== undefined) {
    parts.push('held_until > @heldAfter');
    params['heldAfter'] = q.heldAfter;
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(''), params };
}

/** The store's task reads; `tokenLive` is identity's check, asked by a read that names its caller's token. */
export function taskReader(
  db: Db,
  tokenLive: (hash: string) => boolean,
): Pick<TaskStore, 'getTask' | 'listTasks' | 'openKeyHolder' | 'countCreated' | 'tasksThatWrote'> {
  const gate = quotaStatements(db).gate;
  const prepare = statementCache(db);
  const getRow = db.prepare('SELECT * FROM tasks WHERE id = ?');
  const keyHolder = db.prepare(`SELECT id FROM tasks WHERE open_key = ? AND ${OPEN_KEY_HOLDS}`).pluck();
  const writers = db
    .prepare(
      'SELECT task_id FROM task_paths WHERE context_id = ? AND path = ? ORDER BY written_at DESC, task_id DESC LIMIT +?',
    )
    .pluck();
  const lastMessages = db.prepare('SELECT body FROM messages WHERE task_id = ? ORDER BY seq DESC LIMIT +?').pluck();
  const allArtifacts = artifactReads(db);

  const hydrate = (row: TaskRow, options: GetOptions): StoredTask => {
    const record = recordFromRow(row);
    const wanted = Math.min(options.historyLength ?? record.messageCount, record.messageCount);
    const history =
      wanted > 0
        ? (lastMessages.all(record.id, wanted) as string[]).reverse().map((b) => JSON.parse(b) as Message)
        : [];
    const artifacts = options.includeArtifacts && record.artifactCount > 0 ? allArtifacts(record.id) : [];
    return { record, history, artifacts };
  };

  const get = (id: string, options: GetOptions): StoredTask | undefined => {
    const row = getRow.get(id) as TaskRow | undefined;
    return row && hydrate(row, options);
  };

  const list = async (q: TaskQuery): Promise<TaskPage> => {
    const f = filters(q);
    const cursorParams: Record<string, unknown> = {};
    const walks = cursorWalks(q, (value) => {
      const name = `cur${Object.keys(cursorParams).length}`;
      cursorParams[name] = value;
      return `@${name}`;
    });
    const order = ` ORDER BY ${orderBy(q)}`;
    const parts = branches(q).flatMap((b) => walks.map((walk) => ({ where: `${b.where}${walk}`, params: b.params })));
    const select = (where: string) => `SELECT * FROM tasks WHERE ${where}${f.sql}${order} LIMIT +@lim`;
    const sql =
      parts.length === 1
        ? select(parts[0]!.where)
        : `SELECT * FROM (${parts.map((p) => `SELECT * FROM (${select(p.where)})`).join(' UNION ALL ')})${order} LIMIT +@lim`;
    const params = Object.assign({}, ...parts.map((p) => p.params), f.params, cursorParams, { lim: q.limit + 1 });
    const rows = prepare(sql).all(params) as TaskRow[];
    // A count needs no order, so it takes each scope branch once, with every asked state in it.
    const states = q.states?.length ? ` AND state IN (${q.states.map((_, i) => `@s${i}`).join(', ')})` : '';
    const stateParams = Object.fromEntries((q.states ?? []).map((state, i) => [`s${i}`, state]));
    const total = scopeBranches(q.scope).reduce((sum, b) => {
      const { n } = prepare(`SELECT COUNT(*) AS n FROM tasks WHERE ${b.where}${states}${f.sql}`).get(
        Object.assign({}, b.params, stateParams, f.params),
      ) as { n: number };
      return sum + n;
    }, 0);
    const options = { historyLength: q.historyLength, includeArtifacts: q.includeArtifacts };
    return { tasks: rows.slice(0, q.limit).map((r) => hydrate(r, options)), total, hasMore: rows.length > q.limit };
  };

  const openKeyHolder = async (key: string): Promise<string | undefined> => keyHolder.get(key) as string | undefined;

  /**
   * A task is updated no earlier than it is created, so the span's tasks are among those updated
   * since it began: the scope's indexes (by updated_at) walk them, and task writes keep no index by creation.
   */
  const countCreated = async (scope: TaskScope, from: number, bucketMs: number, buckets: number): Promise<number[]> => {
    const scoped = scopeBranches(scope);
    const sql = `SELECT CAST((created_at - @from) / @width AS INTEGER) AS bucket, COUNT(*) AS n FROM tasks
      WHERE updated_at >= @from AND created_at >= @from AND created_at < @to AND (${scoped.map((b) => `(${b.where})`).join(' OR ') || '0'}) GROUP BY bucket`;
    const params = Object.assign({}, ...scoped.map((b) => b.params), {
      from,
      width: bucketMs,
      to: from + bucketMs * buckets,
    });
    return countsByBucket(prepare(sql).all(params) as { bucket: number; n: number }[], buckets);
  };

  return {
    getTask: async (id, options) => {
      gate(options.tokenGate); // a closed gate refuses first, as task writes do
      if (options.liveToken !== undefined && !tokenLive(options.liveToken)) throw new TokenNotLive();
      return get(id, options);
    },
    listTasks: list,
    openKeyHolder,
    countCreated,
    tasksThatWrote: async (contextId, path, limit) => writers.all(contextId, path, limit) as string[],
  };
}
