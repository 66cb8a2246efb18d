/**
 * Spaces and their members, in synchronous statements as identity's are (not through the
 * group-commit writer, which batches task writes): each write is one statement on one row.
 */
import { isConstraintViolation, type Db } from './database.js';
import { StoreConflict, type SpaceMember, type SpacePatch, type SpaceRecord, type SpaceStore } from '../store.js';
import { memberFromRow, patchToRow, spaceFromRow, spaceToRow, type MemberRow, type SpaceRow } from '../rows.js';

export function spaceStatements(db: Db): SpaceStore {
  const insertSpace = db.prepare(
    `INSERT INTO spaces (name, description, claim, owner, orchestrator_priority, created_at, updated_at)
     VALUES (@name, @description, @claim, @owner, @orchestrator_priority, @created_at, @updated_at)`,
  );
  const getSpace = db.prepare('SELECT * FROM spaces WHERE name = ?');
  const patchSpace = db.prepare(
    `UPDATE spaces SET description = CASE WHEN @description_given THEN @description ELSE description END,
       claim = COALESCE(@claim, claim), orchestrator_priority = COALESCE(@orchestrator_priority, orchestrator_priority), updated_at = @updated_at
     WHERE name = @name RETURNING *`,
  );
  // A bound from the start ('' sorts before every name) rather than `@after IS NULL OR …`, so a page seeks into the key instead of scanning up to it.
  const spacePage = db.prepare("SELECT * FROM spaces WHERE name > COALESCE(@after, '') ORDER BY name LIMIT +@lim");
  const memberRows = db.prepare('SELECT handle, role, added_at FROM space_members WHERE space = ? ORDER BY handle');
  const memberRow = db.prepare('SELECT handle, role, added_at FROM space_members WHERE space = ? AND handle = ?');
  // A member set again keeps the time it was first added: only its role is replaced.
  const upsertMember = db.prepare(
    'INSERT INTO space_members (space, handle, role, added_at) VALUES (?, ?, ?, ?) ON CONFLICT (space, handle) DO UPDATE SET role = excluded.role',
  );
  const deleteMember = db.prepare('DELETE FROM space_members WHERE space = ? AND handle = ?');

  return {
    createSpace: async (space: SpaceRecord) => {
      try {
        insertSpace.run(spaceToRow(space));
      } catch (e) {
        if (isConstraintViolation(e)) throw new StoreConflict('space-name', `space ${space.name} is taken`);
        throw e;
      }
    },
    getSpace: async (name: string) => {
      const row = getSpace.get(name) as SpaceRow | undefined;
      return row && spaceFromRow(row);
    },
    updateSpace: async (name: string, patch: SpacePatch) => {
      const row = patchSpace.get({ name, ...patchToRow(patch) }) as SpaceRow | undefined;
      return row && spaceFromRow(row);
    },
    listSpaces: async (query: { limit: number; after?: string }) => {
      const rows = spacePage.all({ after: query.after ?? null, lim: query.limit + 1 }) as SpaceRow[];
      return { spaces: rows.slice(0, query.limit).map(spaceFromRow), hasMore: rows.length > query.limit };
    },
    members: async (space: string) => (memberRows.all(space) as MemberRow[]).map(memberFromRow),
    memberOf: async (space: string, handle: string) => {
      const row = memberRow.get(space, handle) as MemberRow | undefined;
      return row && memberFromRow(row);
    },
    setMember: async (space: string, member: SpaceMember) =>
      void upsertMember.run(space, member.handle, member.role, member.addedAt),
    removeMember: async (space: string, handle: string) => deleteMember.run(space, handle).changes === 1,
  };
}
