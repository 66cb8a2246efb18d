/**
 * The agent-profiles migration, the same words on both dialects: the profile's columns, and the
 * search columns (agent-profile-rows.ts) of the agents registered before it, which only
 * TypeScript makes (lower-casing is Unicode's there, whatever the dialect).
 */
import { profileColumns } from './agent-profile-rows.js';
import { agentFromRow, type AgentRow } from './rows.js';

/** The columns, each TEXT: skills and tags hold JSON; the search columns are never null. */
export const AGENT_PROFILES_SQL = (): string => `
-- A profile (PATCH /api/agents/{handle}): declared skills and tags as JSON text, read and written whole.
ALTER TABLE agents ADD COLUMN skills TEXT;
ALTER TABLE agents ADD COLUMN tags TEXT;
-- What the directory searches, made by the hub at every write (agent-profile-rows.ts); a search is
-- a scan with a LIMIT, so these carry no index.
ALTER TABLE agents ADD COLUMN search_names TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN search_keys TEXT NOT NULL DEFAULT '';
`;

/** Every agent's search columns, by handle. */
export const profileBackfill = (rows: readonly AgentRow[]) =>
  rows.map((row) =>
    Object.assign(
      { handle: row.handle },
      profileColumns(agentFromRow(Object.assign({ skills: null, tags: null }, row))),
    ),
  );
