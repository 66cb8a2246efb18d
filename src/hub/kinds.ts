/**
 * The hub's registry of kinds: it builds each module it is given (see KindModule; the list is
 * src/kinds/server.ts, handed over by the composition root) and decides which kind opens a task
 * at a door. It names no kind.
 */
import type { Message } from '../a2a/types.js';
import type { QuotaRule } from '../identity/quotas.js';
import type { MigrationInputs } from '../store/open-key-backfill.js';
import type { Door, Kind, KindBase } from './kind.js';
import type { CardSkill, KindDeps, KindModule, ReadServices, RestRead } from './kind-module.js';
import { skillOf } from '../wire/skill-call.js';

/** The first path segments the hub serves itself: a kind's base of its own may not take one. */
const HUB_PATHS: ReadonlySet<string> = new Set([
  'api',
  'agents',
  'spaces',
  'feed',
  'mcp',
  'health',
  'metrics',
  '.well-known',
]);

/** Where the opening table files a door: by its kind, a kind's own base also by its name. */
const placeOf = (door: Door['kind'], base: string | undefined) => (door === 'base' ? `base:${base}` : door);
const slot = (place: string, skill: string | undefined) => `${place} ${skill ?? ''}`;

/** Every module's quota rules, one table (a rule named twice is a bug caught at start). */
export function kindQuotaRules(modules: readonly KindModule[]): Record<string, QuotaRule> {
  const rules: Record<string, QuotaRule> = {};
  for (const m of modules) {
    for (const [name, rule] of Object.entries(m.quotaRules ?? {})) {
      if (Object.hasOwn(rules, name)) throw new Error(`quota rule ${name} is declared by two kinds`);
      rules[name] = rule;
    }
  }
  return rules;
}

/** What the store's migrations need of the kinds: how each derives a stored task's open key. */
export function kindMigrationInputs(modules: readonly KindModule[]): MigrationInputs {
  return { openKeys: Object.fromEntries(modules.flatMap((m) => (m.openKeyOf ? [[m.name, m.openKeyOf]] : []))) };
}

/** The kinds built from their modules, and which one opens a task at a door. */
export class Kinds {
  readonly byName: ReadonlyMap<string, Kind>;
  /** The bases kinds bring of their own (the memory base), which the A2A door serves. */
  readonly bases: readonly KindBase[];
  private readonly openers = new Map<string, Kind>();
  /** Each kind that opens at a base of its own, and that base's name. */
  private readonly ownBase = new Map<string, string>();

  /** `settings`: each kind's own by kind name (Config.kinds), handed to it alone; a kind not named takes its defaults. */
  constructor(
    deps: Omit<KindDeps, 'settings'>,
    private readonly modules: readonly KindModule[],
    settings: Readonly<Record<string, unknown>> = {},
  ) {
    const byName = new Map<string, Kind>();
    for (const m of modules) {
      const kind = m.create({ ...deps, settings: settings[m.name] });
      byName.set(m.name, kind);
      for (const at of m.opensAt) {
        if (at.door === 'base' && !m.base)
          throw new Error(`kind ${m.name} opens at a base of its own but declares none`);
        if (at.door === 'base') this.ownBase.set(m.name, m.base!.name);
        const key = slot(placeOf(at.door, m.base?.name), at.skill);
        if (this.openers.has(key))
          throw new Error(`two kinds open tasks at ${at.door} bases${at.skill ? ` for skill ${at.skill}` : ''}`);
        this.openers.set(key, kind);
      }
    }
    this.byName = byName;
    this.bases = modules.flatMap((m) => (m.base ? [m.base] : []));
    if (new Set(this.bases.map((b) => b.name)).size < this.bases.length)
      throw new Error('two kinds bring bases of one name');
    const taken = this.bases.find((b) => HUB_PATHS.has(b.name));
    if (taken) throw new Error(`a kind's base may not be named ${taken.name}: /${taken.name}/ is the hub's own`);
  }

  /**
   * The kind a new message opens at this door: the one taking the skill it names there, else
   * the door's own kind. Decided by door and skill alone, never by the order of the list.
   */
  opener(door: Door, message: Message): Kind | undefined {
    const skill = skillOf(message);
    const place = placeOf(door.kind, door.kind === 'base' ? door.name : undefined);
    return (
      (skill !== undefined ? this.openers.get(slot(place, skill)) : undefined) ??
      this.openers.get(slot(place, undefined))
    );
  }

  /** The kinds whose tasks live at the kind base `name`. */
  atBase(name: string): string[] {
    return [...this.ownBase].filter(([, base]) => base === name).map(([kind]) => kind);
  }

  /** The base of its own a kind's tasks live at, if they live at one. */
  baseOf(kind: string): string | undefined {
    return this.ownBase.get(kind);
  }

  /** The kinds whose tasks live at bases of this door kind (a space's intents). */
  atDoor(door: Door['kind']): string[] {
    return this.modules.filter((m) => m.opensAt.some((at) => at.door === door)).map((m) => m.name);
  }

  /** Every module's REST reads, built over the hub's services (a path served twice is a bug caught at start). */
  restReads(services: ReadServices): RestRead[] {
    const reads = this.modules.flatMap((m) => m.restReads?.(services) ?? []);
    const paths = new Set(reads.map((r) => r.path));
    if (paths.size < reads.length) throw new Error('two REST reads of the kinds share a path');
    return reads;
  }

  /** The skills a card of this kind of base lists; a kind's own base lists only its own kinds' skills. */
  cardSkills(door: Door['kind'], subject: string): CardSkill[] {
    return this.modules
      .filter((m) => door !== 'base' || m.base?.name === subject)
      .flatMap((m) => m.cardSkills?.(door, subject) ?? []);
  }
}
