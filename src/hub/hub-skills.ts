/**
 * The skills the hub itself lists on its cards: its base's own (reading tasks, the directory)
 * and every kind's at every kind of base. Agents may not declare these ids (identity/profile.ts).
 */
import { DIRECTORY_SKILL } from './directory.js';
import type { Door } from './kind.js';
import type { CardSkill, KindModule } from './kind-module.js';

/** What the hub's base offers besides the kinds that open tasks there. */
export const HUB_BASE_SKILLS: readonly CardSkill[] = [
  {
    id: 'tasks',
    name: 'Your tasks',
    description:
      'GetTask and ListTasks over every public task and every task you sent or received on this hub, whichever base it was sent to. Public tasks need no token to read.',
    tags: ['tasks', 'hub'],
  },
  DIRECTORY_SKILL,
];

const DOOR_KINDS: readonly Door['kind'][] = ['hub', 'agent', 'space', 'base'];

/** Every skill id the hub lists on any of its cards (a kind's own base named as itself, any other base as some agent's). */
export const hubSkillIds = (modules: readonly KindModule[]): ReadonlySet<string> =>
  new Set(
    [
      ...HUB_BASE_SKILLS,
      ...modules.flatMap((m) =>
        DOOR_KINDS.flatMap((door) => m.cardSkills?.(door, door === 'base' ? (m.base?.name ?? '') : 'agent') ?? []),
      ),
    ].map((s) => s.id),
  );
