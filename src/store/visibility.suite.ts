/**
 * Visibility as a property, on a real database: for random tasks of every kind and every caller
 * at every door, the list the view scopes (ListTasks, walked by the store in pages) holds exactly
 * the tasks the view's check of one task (GetTask) shows there, in the lists' order, with the same
 * total. Each round draws from a seeded generator; MUSTER_VISIBILITY_SEED replays one round.
 */
import { describe, expect, it } from 'vitest';
import type { TaskState } from '../a2a/types.js';
import type { Caller } from '../identity/caller.js';
import { isHubError } from '../errors/hub-error.js';
import type { Door } from '../hub/kind.js';
import { hubKinds } from '../hub/view-scopes.fixture.js';
import { View } from '../hub/view.js';
import type { Store, StoredTask, TaskRecord, TaskWrite } from './store.js';

/** A small seeded generator (mulberry32): the same seed draws the same tasks. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  return { next, pick, chance: (p: number) => next() < p };
}

const AGENTS = ['ann', 'bob', 'cy', 'dee'];
const SPACES = ['s1', 's2'];
const STATES: TaskState[] = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_INPUT_REQUIRED',
];
const CALLERS: Caller[] = [
  { kind: 'anonymous' },
  { kind: 'admin' },
  ...AGENTS.map((handle): Caller => ({ kind: 'agent', handle })),
  { kind: 'operator', handle: 'olga', agents: ['ann', 'bob'] },
  { kind: 'operator', handle: 'otto', agents: ['cy'] },
  { kind: 'operator', handle: 'oona', agents: [] },
];

const ROUNDS = process.env['MUSTER_VISIBILITY_SEED'] ? [Number(process.env['MUSTER_VISIBILITY_SEED'])] : [1, 2, 3];

export function visibilitySuite(name: string, open: () => Promise<{ store: Store; done: () => Promise<void> }>): void {
  describe(`visibility: ${name}`, () => {
    const kinds = hubKinds();
    const view = new View(kinds);
    const doors: Door[] = [
      { kind: 'hub' },
      ...[...AGENTS, 'zed'].map((handle): Door => ({ kind: 'agent', handle })),
      ...[...SPACES, 'nowhere'].map((space): Door => ({ kind: 'space', name: space })),
      ...kinds.bases.map((b): Door => ({ kind: 'base', name: b.name })),
    ];

    /** A random task of each kind as it is stored: its readers say whether it is public and has a target. */
    function randomTask(g: ReturnType<typeof generator>, i: number, seed: number): TaskWrite {
      const kind = g.pick([...kinds.byName.values()]);
      const { readers, listedAt } = kind.visibility;
      const sender = readers === 'everyone' && g.chance(0.3) ? undefined : g.pick(AGENTS);
      const target = readers === 'sender-and-target' ? g.pick(AGENTS.filter((a) => a !== sender)) : undefined;
      const at = 1_700_000_000_000 + Math.floor(g.next() * 20); // few distinct times: ties are broken by id
      const record: TaskRecord = {
        id: `v${seed}-${String(i).padStart(3, '0')}-${Math.floor(g.next() * 1e6)}`,
        kind: kind.name,
        contextId: listedAt.includes('space') ? g.pick(SPACES) : g.pick(['c1', 'c2', ...SPACES]),
        ...(sender !== undefined ? { sender } : {}),
        ...(target !== undefined ? { target } : {}),
        visibility: readers === 'everyone' ? 'public' : 'participants',
        state: g.pick(STATES),
        statusAt: at,
        createdAt: at,
        updatedAt: at,
        messageCount: 0,
        artifactCount: 0,
        version: 1,
        lastSeq: 0,
      };
      return { record, newMessages: [], newArtifacts: [], events: [] };
    }

    /** Whether GetTask at the door shows the task to the caller. */
    const shows = (caller: Caller, door: Door, task: StoredTask): boolean => {
      try {
        view.visible(caller, door, task, task.record.id);
        return true;
      } catch (e) {
        if (isHubError(e) && e.code === 'TASK_NOT_FOUND') return false;
        throw e;
      }
    };

    /** Every page of a list, walked by its cursor, and the total each page said. */
    async function walk(
      store: Store,
      caller: Caller,
      door: Door,
      states?: readonly TaskState[],
    ): Promise<{ ids: string[]; totals: number[] } | 'refused'> {
      let scope;
      try {
        scope = view.listScope(caller, door);
      } catch (e) {
        if (isHubError(e) && e.code === 'FORBIDDEN') return 'refused';
        throw e;
      }
      if (!scope) return { ids: [], totals: [0] };
      const ids: string[] = [];
      const totals: number[] = [];
      let after: TaskRecord | undefined;
      for (;;) {
        const page = await store.listTasks({
          scope,
          ...(states ? { states } : {}),
          limit: 7,
          includeArtifacts: false,
          ...(after ? { after } : {}),
        });
        ids.push(...page.tasks.map((t) => t.record.id));
        totals.push(page.total);
        if (!page.hasMore) return { ids, totals };
        after = page.tasks[page.tasks.length - 1]!.record;
      }
    }

    it.each(ROUNDS)(
      'lists at every door exactly the tasks GetTask shows there, for every caller (seed %i)',
      async (seed) => {
        const g = generator(seed);
        const { store, done } = await open();
        try {
          const writes = Array.from({ length: 80 }, (_, i) => randomTask(g, i, seed));
          for (const w of writes) await store.createTask(w);
          const stored = await Promise.all(
            writes.map(async (w) => (await store.getTask(w.record.id, { includeArtifacts: false }))!),
          );
          const newestFirst = (a: StoredTask, b: StoredTask) =>
            b.record.updatedAt - a.record.updatedAt || (a.record.id < b.record.id ? 1 : -1);
          for (const caller of CALLERS) {
            for (const door of doors) {
              const states = g.chance(0.3)
                ? [g.pick(STATES), g.pick(STATES)].filter((s, i, all) => all.indexOf(s) === i)
                : undefined;
              const where = `seed ${seed}: ${JSON.stringify(caller)} at ${JSON.stringify(door)}${states ? ` in ${states.join(', ')}` : ''}`;
              const listed = await walk(store, caller, door, states);
              if (listed === 'refused') {
                // Refused whole, as documented: an operator lists only its own agents' bases.
                expect(
                  caller.kind === 'operator' && door.kind === 'agent' && !caller.agents.includes(door.handle),
                  where,
                ).toBe(true);
                continue;
              }
              const expected = stored
                .filter((t) => (!states || states.includes(t.record.state)) && shows(caller, door, t))
                .sort(newestFirst)
                .map((t) => t.record.id);
              expect(listed.ids, where).toEqual(expected);
              expect(new Set(listed.totals), where).toEqual(new Set([expected.length]));
            }
          }
        } finally {
          await done();
        }
      },
    );
  });
}
