/**
 * Spaces and their members, one statement each. A name taken by another process at the same
 * moment is its primary key's unique violation, which database.ts turns into StoreConflict
 * 'space-name'.
 */
import type { SpaceMember, SpacePatch, SpaceRecord, SpaceStore } from '../store.js';
import type { Db } from './database.js';
import { memberFromRow, patchToRow, spaceFromRow, spaceToRow, type MemberRow, type SpaceRow } from '../rows.js';

const SPACE_COLUMNS = 'name, description, claim, owner, orchestrator_priority, created_at, updated_at';
const MEMBER_COLUMNS = 'handle, role, added_at';

export function spaceStatements(db: Db): SpaceStore {
  return {
    createSpace: async (space: SpaceRecord): Promise<void> => {
      const r = spaceToRow(space);
      await db.query(`INSERT INTO spaces (${SPACE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        r.name,
        r.description,
        r.claim,
        r.owner,
        r.orchestrator_priority,
        r.created_at,
        r.updated_at,
      ]);
    },

    getSpace: async (name: string) => {
      const { rows } = await db.query<SpaceRow>(`SELECT ${SPACE_COLUMNS} FROM spaces WHERE name = $1`, [name]);
      return rows[0] && spaceFromRow(rows[0]);
    },

    updateSpace: async (name: string, patch: SpacePatch) => {
      const p = patchToRow(patch);
      const { rows } = await db.query<SpaceRow>(
        `UPDATE spaces SET description = CASE WHEN $2::int = 1 THEN $3::text ELSE description END,
           claim = COALESCE($4::text, claim), orchestrator_priority = COALESCE($5::int, orchestrator_priority), updated_at = $6::int8
         WHERE name = $1 RETURNING ${SPACE_COLUMNS}`,
        [name, p.description_given, p.description, p.claim, p.orchestrator_priority, p.updated_at],
      );
      return rows[0] && spaceFromRow(rows[0]);
    },

    listSpaces: async (query: { limit: number; after?: string }) => {
      const { rows } = await db.query<SpaceRow>(
        // A bound from the start ('' sorts before every name), so a page seeks into the key instead of scanning up to it.
        `SELECT ${SPACE_COLUMNS} FROM spaces WHERE name > COALESCE($1::text, '') ORDER BY name LIMIT $2`,
        [query.after ?? null, query.limit + 1],
      );
      return { spaces: rows.slice(0, query.limit).map(spaceFromRow), hasMore: rows.length > query.limit };
    },

    members: async (space: string) =>
      (
        await db.query<MemberRow>(`SELECT ${MEMBER_COLUMNS} FROM space_members WHERE space = $1 ORDER BY handle`, [
          space,
        ])
      ).rows.map(memberFromRow),

    memberOf: async (space: string, handle: string) => {
      const { rows } = await db.query<MemberRow>(
        `SELECT ${MEMBER_COLUMNS} FROM space_members WHERE space = $1 AND handle = $2`,
        [space, handle],
      );
      return rows[0] && memberFromRow(rows[0]);
    },

    /** A member set again keeps the time it was first added: only its role is replaced. */
    setMember: async (space: string, member: SpaceMember): Promise<void> => {
      await db.query(
        `INSERT INTO space_members (space, handle, role, added_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (space, handle) DO UPDATE SET role = EXCLUDED.role`,
        [space, member.handle, member.role, member.addedAt],
      );
    },

    removeMember: async (space: string, handle: string) =>
      (await db.query('DELETE FROM space_members WHERE space = $1 AND handle = $2', [space, handle])).rowCount === 1,
  };
}
