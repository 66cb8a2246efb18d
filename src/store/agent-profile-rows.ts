/**
 * How an agent's profile lies in its row, the same on both dialects. Besides the profile itself
 * (`skills` and `tags`, JSON text), each row keeps four columns the directory searches, made here
 * whenever the row is written, so neither dialect lower-cases or unpacks JSON in SQL (SQLite's
 * lower() knows only ASCII; PostgreSQL's knows Unicode: they would disagree):
 *   search_names  the handle and the name, lower-cased: a match here ranks first
 *   search_text   the description and each skill's name, description and examples, lower-cased
 *   search_tags   the agent's tags and its skills' tags
 *   search_keys   ` s:<skill id> … t:<tag> … ` with a space either side of each key, for exact matches
 * The first three are the store's full-text index (SQLite FTS5 `agent_search`, kept by triggers on
 * `agents`; PostgreSQL a generated `tsvector` under a GIN index), as memory's recall uses it: `q`'s
 * words (wire/search-words.ts) must each be found, as a word or a word's start. Ranked: a match
 * of every word in the handle or name first, then by the index's rank, then registration order.
 * `skill` and `tag` alone are a scan of `agents` with a LIMIT.
 */
import { searchWords } from '../wire/search-words.js';
import type { AgentRecord, AgentSearch, ProfilePatch } from './identity.js';
import { agentFromRow, type AgentRow } from './rows.js';

export interface ProfileColumns {
  name: string | null;
  description: string | null;
  skills: string | null;
  tags: string | null;
  input_modes: string | null;
  output_modes: string | null;
  search_names: string;
  search_text: string;
  search_tags: string;
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
    search_text: [agent.description ?? '', ...skills.flatMap((s) => [s.name, s.description, ...(s.examples ?? [])])]
      .join('\n')
      .toLowerCase(),
    search_tags: [...tags].join(' '),
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

/** A search's parameters as both dialects bind them: null for a filter not asked; `words`, q's words to match. */
export function searchKeys(query: AgentSearch) {
  return {
    words: query.q ? searchWords(query.q) : [],
    skill: query.skill === undefined ? null : skillKey(query.skill),
    tag: query.tag === undefined ? null : tagKey(query.tag),
    score: query.after?.score ?? null,
    createdAt: query.after?.createdAt ?? null,
    handle: query.after?.handle ?? null,
    lim: query.limit + 1,
  };
}

/** Where a text search reads from, in a dialect's words: its index joined to `agents` (alias a), its match, its score. */
export interface TextSearch {
  from: string;
  match: string;
  /** 1 when every word is in the handle or name, plus the index's rank mapped into [0, 1): higher is better. */
  score: string;
}

type SearchParams = Record<Exclude<keyof ReturnType<typeof searchKeys>, 'words'>, string>;

/**
 * The search over `agents` (alias a), with the dialect's substring function (`instr(text, part)`
 * in SQLite, `strpos(text, part)` in PostgreSQL: both case-sensitive, so exact for keys), its
 * parameters and, for a search with words, its full-text index. Pages go by score, then
 * registration order.
 */
export function searchSql(find: 'instr' | 'strpos', p: SearchParams, text?: TextSearch, columns = 'a.*'): string {
  const has = (column: string, part: string) => `${find}(${column}, ${part}) > 0`;
  return `SELECT * FROM (
    SELECT ${columns}, ${text ? text.score : '0'} AS score FROM ${text ? text.from : 'agents a'}
    WHERE ${text ? text.match : 'TRUE'}
      AND (${p.skill} IS NULL OR ${has('a.search_keys', p.skill)})
      AND (${p.tag} IS NULL OR ${has('a.search_keys', p.tag)})
  ) AS found
  WHERE ${p.score} IS NULL OR score < ${p.score} OR (score = ${p.score} AND (created_at, handle) > (${p.createdAt}, ${p.handle}))
  ORDER BY score DESC, created_at, handle LIMIT ${p.lim}`;
}

/** A page of search rows (one beyond `limit` when there are more) as the store answers it: each agent's score, where the next page starts. */
export function foundPage(rows: readonly (AgentRow & { score: number })[], limit: number) {
  const agents = rows.slice(0, limit);
  const last = agents.at(-1);
  return {
    agents: agents.map(agentFromRow),
    scores: agents.map((r) => Number(r.score)),
    hasMore: rows.length > limit,
    ...(last ? { last: { score: Number(last.score), createdAt: Number(last.created_at), handle: last.handle } } : {}),
  };
}
