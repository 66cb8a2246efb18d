/**
 * How an agent's profile lies in its row, the same on both dialects. Besides the profile itself
 * (`skills` and `tags`, JSON text), each row keeps three columns the directory searches, made here
 * whenever the row is written, so neither dialect lower-cases or unpacks JSON in SQL (SQLite's
 * lower() knows only ASCII; PostgreSQL's knows Unicode: they would disagree):
 *   search_names  the handle and the name, lower-cased: a match here ranks first
 *   search_text   the description and the skill names, lower-cased
 *   search_keys   ` s:<skill id> … t:<tag> … ` with a space either side of each key, for exact matches
 * The search is a scan of the agents table with a LIMIT (see searchKeys): a hub has thousands of
 * agents, not millions, and a substring has no index on either dialect without an extension.
 */
import type { AgentRecord, AgentSearch, ProfilePatch } from './identity.js';

export interface ProfileColumns {
  name: string | null;
  description: string | null;
  skills: string | null;
  tags: string | null;
  input_modes: string | null;
  output_modes: string | null;
  search_names: string;
  search_text: string;
  search_keys: string;
}

type Profiled = Pick<AgentRecord, 'handle' | 'name' | 'description' | 'skills' | 'tags' | 'inputModes' | 'outputModes'>;

const skillKey = (id: string) => ` s:${id} `;
const tagKey = (tag: string) => ` t:${tag} `;

/** The profile columns of an agent record, derived search columns included. */
export function profileColumns(agent: Profiled): ProfileColumns {
  const skills = agent.skills ?? [];
  const tags = new Set([...(agent.tags ?? []), ...skills.flatMap((s) => s.tags ?? [])]);
  const keys = [...skills.map((s) => skillKey(s.id).trim()), ...[...tags].map((t) => tagKey(t).trim())];
  return {
    name: agent.name ?? null,
    description: agent.description ?? null,
    skills: skills.length ? JSON.stringify(skills) : null,
    tags: agent.tags?.length ? JSON.stringify(agent.tags) : null,
    input_modes: agent.inputModes ? JSON.stringify(agent.inputModes) : null,
    output_modes: agent.outputModes ? JSON.stringify(agent.outputModes) : null,
    search_names: [agent.handle, agent.name ?? ''].join('\n').toLowerCase(),
    search_text: [agent.description ?? '', ...skills.map((s) => s.name)].join('\n').toLowerCase(),
    search_keys: keys.length ? ` ${keys.join(' ')} ` : '',
  };
}

/** The record after a patch: members it names replace (null and [] remove), the rest stay. */
export function patchedAgent(agent: AgentRecord, patch: ProfilePatch): AgentRecord {
  const next: AgentRecord = { ...agent };
  const set = <K extends 'name' | 'description' | 'skills' | 'tags' | 'inputModes' | 'outputModes'>(
    key: K,
    value: AgentRecord[K] | null | undefined,
  ) => {
    if (value === undefined) return;
    if (value === null || (Array.isArray(value) && value.length === 0)) delete next[key];
    else next[key] = value;
  };
  set('name', patch.name);
  set('description', patch.description);
  set('skills', patch.skills);
  set('tags', patch.tags);
  set('inputModes', patch.inputModes);
  set('outputModes', patch.outputModes);
  return next;
}

/** A search's parameters as both dialects bind them: null for a filter not asked. */
export function searchKeys(query: AgentSearch) {
  return {
    q: query.q || null,
    skill: query.skill === undefined ? null : skillKey(query.skill),
    tag: query.tag === undefined ? null : tagKey(query.tag),
    score: query.after?.score ?? null,
    createdAt: query.after?.createdAt ?? null,
    handle: query.after?.handle ?? null,
    lim: query.limit + 1,
  };
}

/**
 * The search over `agents`, with the dialect's substring function (`instr(text, part)` in SQLite,
 * `strpos(text, part)` in PostgreSQL: both case-sensitive, so exact for keys) and its parameters.
 * `score` is 1 for a match in the handle or name; pages go by score, then registration order.
 */
export function searchSql(
  find: 'instr' | 'strpos',
  p: Record<keyof ReturnType<typeof searchKeys>, string>,
  columns = '*',
): string {
  const has = (column: string, part: string) => `${find}(${column}, ${part}) > 0`;
  return `SELECT * FROM (
    SELECT ${columns}, CASE WHEN ${p.q} IS NOT NULL AND ${has('search_names', p.q)} THEN 1 ELSE 0 END AS score FROM agents
    WHERE (${p.q} IS NULL OR ${has('search_names', p.q)} OR ${has('search_text', p.q)})
      AND (${p.skill} IS NULL OR ${has('search_keys', p.skill)})
      AND (${p.tag} IS NULL OR ${has('search_keys', p.tag)})
  ) AS found
  WHERE ${p.score} IS NULL OR score < ${p.score} OR (score = ${p.score} AND (created_at, handle) > (${p.createdAt}, ${p.handle}))
  ORDER BY score DESC, created_at, handle LIMIT ${p.lim}`;
}
