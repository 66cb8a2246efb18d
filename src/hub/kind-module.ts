/**
 * A way of working as the hub is handed it: the module that brings a kind (hub/kind.ts) with its
 * settings, limits, doors, card skills and REST reads, and what it is built over.
 */
import type { z } from 'zod';
import type { Caller } from '../identity/caller.js';
import type { QuotaRule, Quotas } from '../identity/quotas.js';
import type { Declarations, SettledSetting } from '../config/declared.js';
import type { OpenKeyOf } from '../store/open-key-backfill.js';
import type { BoardStore, TaskStore } from '../store/store.js';
import type { Door, Kind, KindBase } from './kind.js';
import type { Spaces } from './spaces.js';
import type { View } from './view.js';

/** A skill a kind lists on the Agent Card of a base it opens tasks at. */
export interface CardSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
}

/** What a kind is handed when the hub is built: each takes what it needs by name. */
export interface KindDeps<S = unknown> {
  quotas: Quotas;
  /**
   * Its own settings, as its module made them (KindModule.settingsFrom); undefined when the hub
   * was built without settings (a test's hub in one process): the kind then takes its defaults.
   */
  settings: S | undefined;
  /** The store's parts a kind keeps its own records in (memory boards); tasks it changes only through its Changes. */
  store: BoardStore;
  /** Refuses (AGENT_NOT_FOUND) a handle that names no agent on this hub. */
  requireAgent(handle: string): Promise<void>;
}

/** Where a kind opens new tasks: a door kind (`base`: the module's own base) and, for kinds that take skill calls there, the skill. */
export interface OpensAt {
  door: Door['kind'];
  skill?: string;
}

/** What a kind's REST reads are built over (KindModule.restReads): the hub's services, never a door. */
export interface ReadServices {
  /** The store's parts a kind's reads take: its tasks' lists, and the boards a kind keeps (memory). */
  store: Pick<TaskStore, 'listTasks'> & BoardStore;
  spaces: Spaces;
  view: View;
  clock: () => number;
}

/** One REST read as its handler sees it: the caller (worked out when asked for), the path's params, the checked query. */
export interface RestReadRequest<Q> {
  caller(): Promise<Caller>;
  params: Readonly<Record<string, string>>;
  query: Q;
}

/**
 * A GET a kind serves over REST. The REST door mounts it at `path`, checks the query against
 * `query` (a bad field is refused in the door's words; without it, the query is not read), and
 * sends what `answer` answers as JSON, or as `mediaType` when set; the door's error table maps what
 * it throws.
 */
export interface RestRead<Q = unknown> {
  /** Fastify's form, with `:param` segments: '/api/spaces/:name/intents'. */
  path: string;
  query?: z.ZodType<Q>;
  mediaType?: string;
  answer(request: RestReadRequest<Q>): Promise<unknown>;
}

/**
 * A way of working as one module: everything it brings to the hub. The hub builds its kinds,
 * quota rules and opening table from the modules it is handed (src/kinds/server.ts), the cards
 * list their skills, the settings table takes their settings; nothing outside the kind's wing
 * names it.
 */
export interface KindModule<S = unknown> {
  readonly name: string;
  /** Its rate limits by rule name; each becomes a limit setting (`direct.pair`: limitDirectPair) in the hub's table. */
  readonly quotaRules?: Readonly<Record<string, QuotaRule>>;
  /**
   * Its settings, entries of the hub's one settings table (config/settings.ts makes each one's
   * flag, variable, file key, help and check, as for the hub's own), keyed as the file spells them.
   */
  readonly settings?: Declarations;
  /**
   * What `create` is handed of its settings (KindDeps.settings), from each one settled (its value
   * and origin); a check across them throws a ConfigError naming both. Without it: the values by key.
   */
  settingsFrom?(settled: Readonly<Record<string, SettledSetting<any>>>): S;
  /** Which door (and skill) opens this kind's tasks: at most one module per pair, checked when the hub starts. */
  readonly opensAt: readonly OpensAt[];
  /** Its own A2A base, if it brings one (the memory base). */
  readonly base?: KindBase;
  /** The skills this kind lists on the card of each kind of base; `subject` names the agent, space or kind base. */
  cardSkills?(door: Door['kind'], subject: string): CardSkill[];
  create(deps: KindDeps<S>): Kind;
  /**
   * The open key (Opening.openKey) of a stored task of this kind, from its metadata, as `open`
   * gives it: the store's migrations derive the keys of tasks written before keys with it.
   */
  openKeyOf?: OpenKeyOf;
  /** The REST reads the kind serves (a space's intents page), built once over the hub's services. */
  restReads?(services: ReadServices): RestRead[];
}
