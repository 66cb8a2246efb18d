/**
 * A list's order as SQL, the same in both dialects (see TaskOrder): what a page sorts by, and
 * the walks it takes after its cursor. A keyset page goes on from its cursor with one row-value
 * comparison, which runs in one direction; `rank` sorts the rank downwards and the age upwards,
 * so after a cursor it walks twice, each an index range in order: the rest of the cursor's rank,
 * then the ranks below it.
 */
import type { TaskOrdering } from './tasks.js';

/** Binds a value as the dialect does and answers its placeholder. */
export type Bind = (value: unknown, type: 'int' | 'int8' | 'text') => string;

/** The ORDER BY of a page (no table alias: each dialect's statements name these columns bare). */
export const orderBy = (q: TaskOrdering): string =>
  q.order === 'rank' ? 'rank DESC, created_at, id' : 'updated_at DESC, id DESC';

/** The condition of each walk a page takes (` AND …`, or '' from the start), to be merged in the page's order. */
export function cursorWalks(q: TaskOrdering, bind: Bind): string[] {
  if (!q.after) return [''];
  const id = bind(q.after.id, 'text');
  if (q.order !== 'rank') return [` AND (updated_at, id) < (${bind(q.after.updatedAt, 'int8')}, ${id})`];
  const rank = bind(q.after.rank ?? 0, 'int');
  return [
    ` AND rank = ${rank} AND (created_at, id) > (${bind(q.after.createdAt, 'int8')}, ${id})`,
    ` AND rank < ${rank}`,
  ];
}
