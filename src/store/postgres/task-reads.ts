/**
 * Task rows and task reads. A read is one round trip: the row (or a page of rows) with its last
 * messages and its artifacts gathered by subqueries. Message and artifact bodies are JSON text, so
 * the server joins them into one JSON array text (`[` body `,` body `]`) and the client parses
 * once per task.
 */
import type { Artifact, Message } from '../../a2a/types.js';
import {
  countsByBucket,
  type ColumnTest,
  type GetOptions,
  type QuotaGate,
  type StoredTask,
  type TaskColumn,
  type TaskPage,
  type TaskQuery,
  type TaskRecord,
  type TaskScope,
  type TaskStore,
} from '../store.js';
import { Statement, type Db } from './database.js';
import { gateTest } from './receipts.js';
import { cursorWalks, orderBy } from '../order.js';
import {
  kindLiteral,
  OPEN_KEY_HOLDS,
  recordFromRow,
  SCOPE_COLUMNS,
  TASK_COLUMNS,
  type TaskRow as StoredRow,
} from '../rows.js';

const text = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/** A record's column values in TASK_COLUMNS order, `id` first, each with its SQL type. */
export function taskValues(r: TaskRecord): [unknown, string][] {
  return [
    [r.id, 'text'],
    [r.kind, 'text'],
    [r.contextId, 'text'],
    [r.sender ?? null, 'text'],
    [r.target ?? null, 'text'],
    [r.visibility, 'text'],
    [r.state, 'text'],
    [text(r.statusMessage), 'text'],
    [r.statusAt, 'int8'],
    [r.createdAt, 'int8'],
    [r.updatedAt, 'int8'],
    [text(r.metadata), 'text'],
    [r.messageCount, 'int'],
    [r.artifactCount, 'int'],
    [r.version, 'int'],
    [r.lastSeq, 'int'],
    [r.rank ?? 0, 'int'],
    [r.holder ?? null, 'text'],
    [r.heldUntil ?? null, 'int8'],
    [r.openKey ?? null, 'text'],
    [text(r.acceptedOutputModes), 'text'],
  ];
}

/** A `tasks` row with its newest messages and (when asked for) its artifacts, as JSON arrays. */
interface TaskRow extends StoredRow {
  history: string | null;
  artifacts?: string | null;
}

const taskFromRow = (row: TaskRow): StoredTask => ({
  record: recordFromRow(row),
  history: row.history ? (JSON.parse(row.history) as Message[]) : [],
  artifacts: row.artifacts ? (JSON.parse(row.artifacts) as Artifact[]) : [],
});

/** How many of the last messages to read: NULL is all of them; a negative length keeps none (as in SQLite). */
const keep = (historyLength: number | undefined) => (historyLength === undefined ? null : Math.max(0, historyLength));

/**
 * The select list of a task read from alias `t`: its columns, its last `limit` messages (NULL:
 * all) and, when asked, its artifacts in the order they were first written.
 */
function hydrated(s: Statement, t: string, options: GetOptions): string {
  const history = `(SELECT '[' || string_agg(m.body, ',' ORDER BY m.seq) || ']'
    FROM (SELECT seq, body FROM messages WHERE task_id = ${t}.id ORDER BY seq DESC LIMIT ${s.param(keep(options.historyLength), 'int')}) m) AS history`;
  const artifacts = `(SELECT '[' || string_agg(a.body, ',' ORDER BY a.position, a.artifact_id) || ']' FROM artifacts a WHERE a.task_id = ${t}.id) AS artifacts`;
  return [...TASK_COLUMNS.map((c) => `${t}.${c}`), history, ...(options.includeArtifacts ? [artifacts] : [])].join(
    ', ',
  );
}

/** A scope as index-friendly conditions: one per branch, each walked in order and merged. */
function scopeBranches(s: Statement, scope: TaskScope): string[] {
  return scope.anyOf.map((branch) => {
    const tests = (Object.entries(branch) as [TaskColumn, ColumnTest][]).map(([column, test]) => {
      const sql = SCOPE_COLUMNS[column];
      if ('set' in test) return `${sql} IS ${test.set ? 'NOT NULL' : 'NULL'}`;
      if ('notIn' in test) {
        if (test.notIn.length === 1) return `${sql} IS DISTINCT FROM ${s.param(test.notIn[0], 'text')}`;
        return `(${sql} IS NULL OR ${sql} <> ALL(${s.param(test.notIn, 'text[]')}))`;
      }
      if (column === 'kind' && test.in.length === 1) return `kind = ${kindLiteral(test.in[0])}`;
      return test.in.length === 1
        ? `${sql} = ${s.param(test.in[0], 'text')}`
        : `${sql} = ANY(${s.param(test.in, 'text[]')})`;
    });
    return tests.length ? tests.join(' AND ') : 'TRUE';
  });
}

function filters(s: Statement, q: TaskQuery): string {
  let sql = '';
  if (q.contextId !== undefined) sql += ` AND context_id = ${s.param(q.contextId, 'text')}`;
  if (q.statusAtOrAfter !== undefined) sql += ` AND status_at >= ${s.param(q.statusAtOrAfter, 'int8')}`;
  if (q.heldAfter !== undefined) sql += ` AND held_until > ${s.param(q.heldAfter, 'int8')}`;
  return sql;
}

/**
 * One query for a page and its total. The page walks one branch per scope part and per asked
 * state (an inbox filtered to its open tasks walks the (target, state, …) index once per state),
 * and per walk its order takes after the cursor (order.ts), each in index order, merged and cut
 * to limit + 1 (the extra row says there is more). The total counts each scope part once, with
 * every asked state in it, from indexes only.
 */
export function listStatement(q: TaskQuery): { s: Statement; sql: string } {
  const s = new Statement();
  const scoped = scopeBranches(s, q.scope);
  const where = filters(s, q);
  const states = q.states?.length ? q.states.map((state) => s.param(state, 'text')) : undefined;
  const anyState = states ? ` AND state IN (${states.join(', ')})` : '';
  const total = scoped.map((b) => `(SELECT count(*) FROM tasks WHERE ${b}${anyState}${where})`).join(' + ');
  const walks = cursorWalks(q, (value, type) => s.param(value, type));
  const order = `ORDER BY ${orderBy(q)}`;
  const limit = s.param(q.limit + 1, 'int');
  const branches = states ? scoped.flatMap((b) => states.map((state) => `${b} AND state = ${state}`)) : scoped;
  const selects = branches.flatMap((b) =>
    walks.map((walk) => `(SELECT * FROM tasks WHERE ${b}${where}${walk} ${order} LIMIT ${limit})`),
  );
  const page =
    selects.length === 1 ? selects[0]! : `SELECT * FROM (${selects.join(' UNION ALL ')}) u ${order} LIMIT ${limit}`;
  const columns = hydrated(s, 'p', { historyLength: q.historyLength, includeArtifacts: q.includeArtifacts });
  s.with('page', page);
  s.with('counted', `SELECT ${total} AS total`);
  // Joined to the count, so the total comes back even with an empty page.
  return { s, sql: s.text(`SELECT counted.total, ${columns} FROM counted LEFT JOIN page p ON true ${order}`) };
}

/**
 * A value that is 1 when the token with this hash is live, and raises MU401 (TokenNotLive) when it
 * is not; a closed gate raises MU429 first, before the token is looked at (see QuotaGate).
 */
export const liveTokenTest = (s: Statement, hash: string, gate?: QuotaGate): string => {
  const closed = gateTest(s, gate);
  return `CASE ${closed ? `WHEN ${closed} IS NOT NULL THEN 0 ` : ''}WHEN EXISTS (SELECT 1 FROM tokens WHERE hash = ${s.param(hash, 'text')} AND revoked_at IS NULL) THEN 1
   ELSE muster_refuse('MU401', 'token', 'the token is not live') END AS live`;
};

export function taskReader(
  db: Db,
): Pick<TaskStore, 'getTask' | 'listTasks' | 'openKeyHolder' | 'countCreated' | 'tasksThatWrote'> {
  const get = async (id: string, options: GetOptions): Promise<StoredTask | undefined> => {
    const s = new Statement();
    const taskId = s.param(id, 'text');
    // With a token, the row is joined to its test, so a missing task still has the token checked.
    const sql =
      options.liveToken === undefined
        ? `SELECT ${hydrated(s, 't', options)} FROM tasks t WHERE t.id = ${taskId}`
        : `SELECT ${hydrated(s, 't', options)} FROM (SELECT ${liveTokenTest(s, options.liveToken, options.tokenGate)}) token LEFT JOIN tasks t ON t.id = ${taskId}`;
    const { rows } = await db.query<TaskRow>(sql, s.values);
    return rows[0]?.id ? taskFromRow(rows[0]) : undefined;
  };

  const list = async (q: TaskQuery): Promise<TaskPage> => {
    const { s, sql } = listStatement(q);
    const { rows } = await db.query<TaskRow & { total: number }>(sql, s.values);
    const found = rows.filter((r) => r.id !== null);
    return {
      tasks: found.slice(0, q.limit).map(taskFromRow),
      total: rows[0]?.total ?? 0,
      hasMore: found.length > q.limit,
    };
  };

  const openKeyHolder = async (key: string): Promise<string | undefined> =>
    (await db.query<{ id: string }>(`SELECT id FROM tasks WHERE open_key = $1 AND ${OPEN_KEY_HOLDS}`, [key])).rows[0]
      ?.id;

  /** The span's tasks were all updated since it began: the scope's indexes (by updated_at) walk them; writes keep no index by creation. */
  const countCreated = async (scope: TaskScope, from: number, bucketMs: number, buckets: number): Promise<number[]> => {
    const s = new Statement();
    const start = s.param(from, 'int8');
    const end = s.param(from + bucketMs * buckets, 'int8');
    const scoped =
      scopeBranches(s, scope)
        .map((b) => `(${b})`)
        .join(' OR ') || 'FALSE';
    const sql = `SELECT (created_at - ${start}) / ${s.param(bucketMs, 'int8')} AS bucket, count(*) AS n FROM tasks
      WHERE updated_at >= ${start} AND created_at >= ${start} AND created_at < ${end} AND (${scoped}) GROUP BY bucket`;
    const { rows } = await db.query<{ bucket: string; n: string }>(sql, s.values);
    return countsByBucket(rows, buckets);
  };

  const tasksThatWrote = async (contextId: string, path: string, limit: number): Promise<string[]> =>
    (
      await db.query<{ task_id: string }>(
        'SELECT task_id FROM task_paths WHERE context_id = $1 AND path = $2 ORDER BY written_at DESC, task_id DESC LIMIT $3',
        [contextId, path, limit],
      )
    ).rows.map((r) => r.task_id);

  return { getTask: get, listTasks: list, openKeyHolder, countCreated, tasksThatWrote };
}
