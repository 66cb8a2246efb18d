/**
 * The spaces contract as a suite (spaces.ts, and the `context` task scope their intents are
 * listed by), run against every dialect. Names and handles carry a tag of each test's own, so
 * the suite also holds on a database other tests write to.
 */
import { describe, expect, it } from 'vitest';
import { StoreConflict, type SpaceRecord, type Store, type TaskRecord, type TaskWrite } from './store.js';
import { taskScopes } from '../hub/view.js';

const tagged = () => Math.random().toString(36).slice(2, 10);

const space = (name: string, over: Partial<SpaceRecord> = {}): SpaceRecord => ({
  name,
  description: 'a base for work',
  claim: 'open',
  owner: 'ann',
  orchestratorPriority: 3,
  createdAt: 10,
  updatedAt: 10,
  ...over,
});

async function registered(store: Store, handle: string): Promise<string> {
  await store.insertAgent({ handle, createdAt: 1 }, { id: `t-${handle}`, hash: `h-${handle}` });
  return handle;
}

function task(over: Partial<TaskRecord> & Pick<TaskRecord, 'contextId' | 'updatedAt'>): TaskWrite {
  const id = `task-${tagged()}`;
  const record: TaskRecord = {
    id,
    kind: 'intent',
    sender: 'ann',
    visibility: 'public',
    state: 'TASK_STATE_SUBMITTED',
    statusAt: over.updatedAt,
    createdAt: over.updatedAt,
    messageCount: 0,
    artifactCount: 0,
    version: 1,
    lastSeq: 0,
    ...over,
  };
  return { record, newMessages: [], newArtifacts: [], events: [] };
}

export function spacesSuite(name: string, open: () => Promise<Store>): void {
  describe(`spaces contract: ${name}`, () => {
    it('stores a space as given, and refuses a taken name, leaving the first one as it was', async () => {
      const store = await open();
      const first = space(`s-${tagged()}`);
      await store.createSpace(first);
      expect(await store.getSpace(first.name)).toStrictEqual(first);
      const taken = store.createSpace(space(first.name, { description: 'another', claim: 'members', owner: 'bob' }));
      await expect(taken).rejects.toBeInstanceOf(StoreConflict);
      await expect(taken).rejects.toMatchObject({ what: 'space-name' });
      expect(await store.getSpace(first.name)).toStrictEqual(first);
      // one the admin made has no owner; one without a description has none
      const bare: SpaceRecord = {
        name: `s-${tagged()}`,
        claim: 'members',
        orchestratorPriority: 0,
        createdAt: 11,
        updatedAt: 11,
      };
      await store.createSpace(bare);
      expect(await store.getSpace(bare.name)).toStrictEqual(bare);
      expect(await store.getSpace(`s-${tagged()}`)).toBeUndefined();
      await store.close();
    });

    it('changes only what a patch names; a null description removes it; an unknown space is undefined', async () => {
      const store = await open();
      const s = space(`s-${tagged()}`);
      await store.createSpace(s);
      const described = { ...s, description: 'new words', updatedAt: 20 };
      expect(await store.updateSpace(s.name, { description: 'new words', updatedAt: 20 })).toStrictEqual(described);
      const members = { ...described, claim: 'members' as const, updatedAt: 21 };
      expect(await store.updateSpace(s.name, { claim: 'members', updatedAt: 21 })).toStrictEqual(members);
      const capped = { ...members, orchestratorPriority: 7, updatedAt: 22 };
      expect(await store.updateSpace(s.name, { orchestratorPriority: 7, updatedAt: 22 })).toStrictEqual(capped);
      const { description: _removed, ...undescribed } = { ...capped, updatedAt: 23 };
      expect(await store.updateSpace(s.name, { description: null, updatedAt: 23 })).toStrictEqual(undescribed);
      expect(await store.getSpace(s.name)).toStrictEqual(undescribed);
      const unknown = `s-${tagged()}`;
      expect(await store.updateSpace(unknown, { claim: 'open', updatedAt: 24 })).toBeUndefined();
      expect(await store.getSpace(unknown)).toBeUndefined();
      await store.close();
    });

    it('lists spaces by name (bytes, as both dialects order) in keyset pages', async () => {
      const store = await open();
      // '~' sorts after the letters other tests start their names with, so these are the last spaces.
      const prefix = `~${tagged()}-`;
      for (const n of ['b', 'B', 'c', 'a']) await store.createSpace(space(`${prefix}${n}`));
      const names = (page: { spaces: SpaceRecord[] }) => page.spaces.map((s) => s.name);
      const first = await store.listSpaces({ limit: 2, after: prefix });
      expect(names(first)).toEqual([`${prefix}B`, `${prefix}a`]);
      expect(first.hasMore).toBe(true);
      const second = await store.listSpaces({ limit: 2, after: first.spaces[1]!.name });
      expect(names(second)).toEqual([`${prefix}b`, `${prefix}c`]);
      expect(second.hasMore).toBe(false);
      expect(second.spaces[0]).toStrictEqual(space(`${prefix}b`));
      const all = names(await store.listSpaces({ limit: 1_000 }));
      expect(all.slice(-4)).toEqual([...names(first), ...names(second)]);
      await store.close();
    });

    it('sets a member, replaces its role when set again, reads one, and removes it', async () => {
      const store = await open();
      const tag = tagged();
      const [ann, bob] = [await registered(store, `ann-${tag}`), await registered(store, `bob-${tag}`)];
      const [s, other] = [space(`s-${tag}`), space(`o-${tag}`)];
      await store.createSpace(s);
      await store.createSpace(other);
      expect(await store.members(s.name)).toEqual([]);
      await store.setMember(s.name, { handle: bob, role: 'orchestrator', addedAt: 6 });
      await store.setMember(s.name, { handle: ann, role: 'worker', addedAt: 5 });
      expect(await store.members(s.name)).toStrictEqual([
        { handle: ann, role: 'worker', addedAt: 5 },
        { handle: bob, role: 'orchestrator', addedAt: 6 },
      ]);
      // one role per member: set again, the role is replaced and the member keeps when it was added
      await store.setMember(s.name, { handle: ann, role: 'orchestrator', addedAt: 9 });
      expect(await store.memberOf(s.name, ann)).toStrictEqual({ handle: ann, role: 'orchestrator', addedAt: 5 });
      expect(await store.members(s.name)).toHaveLength(2);
      expect(await store.memberOf(other.name, ann)).toBeUndefined();
      expect(await store.members(other.name)).toEqual([]);
      expect(await store.removeMember(s.name, ann)).toBe(true);
      expect(await store.removeMember(s.name, ann)).toBe(false);
      expect(await store.memberOf(s.name, ann)).toBeUndefined();
      expect((await store.members(s.name)).map((m) => m.handle)).toEqual([bob]);
      await store.close();
    });

    it('refuses a member who is not a registered agent, or of a space that does not exist, writing nothing', async () => {
      const store = await open();
      const tag = tagged();
      const s = space(`s-${tag}`);
      await store.createSpace(s);
      await expect(store.setMember(s.name, { handle: `ghost-${tag}`, role: 'worker', addedAt: 5 })).rejects.toThrow();
      expect(await store.members(s.name)).toEqual([]);
      const ann = await registered(store, `ann-${tag}`);
      await expect(store.setMember(`nowhere-${tag}`, { handle: ann, role: 'worker', addedAt: 5 })).rejects.toThrow();
      expect(await store.memberOf(`nowhere-${tag}`, ann)).toBeUndefined();
      await store.close();
    });

    it("lists a context's tasks of one kind, newest update first, with their total", async () => {
      const store = await open();
      const context = `s-${tagged()}`;
      const [oldest, newest, middle] = [
        task({ contextId: context, updatedAt: 100 }),
        task({ contextId: context, updatedAt: 300 }),
        task({ contextId: context, updatedAt: 200 }),
      ];
      const direct = task({
        contextId: context,
        updatedAt: 400,
        kind: 'direct',
        target: 'bob',
        visibility: 'participants',
      });
      const elsewhere = task({ contextId: `s-${tagged()}`, updatedAt: 500 });
      for (const w of [oldest, newest, middle, direct, elsewhere]) await store.createTask(w);
      const scope = taskScopes.space(context, ['intent']);
      const ids = (page: { tasks: { record: TaskRecord }[] }) => page.tasks.map((t) => t.record.id);
      const first = await store.listTasks({ scope, limit: 2, includeArtifacts: false });
      expect(ids(first)).toEqual([newest.record.id, middle.record.id]);
      expect(first.total).toBe(3);
      expect(first.hasMore).toBe(true);
      const rest = await store.listTasks({ scope, limit: 2, includeArtifacts: false, after: first.tasks[1]!.record });
      expect(ids(rest)).toEqual([oldest.record.id]);
      expect(rest.total).toBe(3);
      expect(rest.hasMore).toBe(false);
      expect(
        await store.listTasks({ scope: taskScopes.space(context, ['direct']), limit: 5, includeArtifacts: false }),
      ).toMatchObject({ total: 1, tasks: [{ record: direct.record }] });
      await store.close();
    });
  });
}
