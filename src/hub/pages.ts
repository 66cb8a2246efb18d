import type { Store, StoredTask, TaskCursor, TaskSelection } from '../store/store.js';

/** Pages read per store call when a whole list is wanted. */
const PAGE = 500;

/** Every task a list query finds, page after page, up to `max` (the newest update first). */
export async function readPages(
  store: Pick<Store, 'listTasks'>,
  query: Omit<TaskSelection, 'limit'>,
  max: number,
): Promise<StoredTask[]> {
  const found: StoredTask[] = [];
  let after: TaskCursor | undefined;
  do {
    const page = await store.listTasks(
      Object.assign({}, query, { limit: Math.min(PAGE, max - found.length) }, after ? { after } : {}),
    );
    found.push(...page.tasks);
    after = page.hasMore ? page.tasks.at(-1)?.record : undefined;
  } while (after && found.length < max);
  return found;
}
