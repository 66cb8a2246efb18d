/**
 * What the hub's status reads of the store, as a suite run against every dialect: node heartbeats
 * (nodes.ts) come, refresh, go and go stale; tasks created per span are counted within a scope.
 * Ids and contexts carry a tag of each test's own, so the suite also holds on a shared database.
 */
import { describe, expect, it } from 'vitest';
import type { Store, TaskRecord, TaskScope } from './store.js';

const tagged = () => Math.random().toString(36).slice(2, 10);
const HOUR = 3_600_000;

function task(contextId: string, createdAt: number, over: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id: `task-${tagged()}`,
    kind: 'review',
    contextId,
    visibility: 'public',
    state: 'TASK_STATE_SUBMITTED',
    statusAt: createdAt,
    createdAt,
    updatedAt: createdAt,
    messageCount: 0,
    artifactCount: 0,
    version: 1,
    lastSeq: 0,
    ...over,
  };
}

export function statusSuite(name: string, open: () => Promise<Store>): void {
  describe(`status reads: ${name}`, () => {
    it('lists a node once it beats, refreshes it, forgets it when dropped, and lists only nodes seen lately', async () => {
      const store = await open();
      const id = `node-${tagged()}`;
      await store.beatNode({ id, version: '1.2.3', startedAt: 1_000, address: 'http://127.0.0.1:1/' }, 60_000);
      const first = (await store.liveNodes(30_000)).find((n) => n.id === id);
      expect(first).toMatchObject({ id, version: '1.2.3', startedAt: 1_000, address: 'http://127.0.0.1:1/' });
      expect(first!.lastSeenAt).toBeGreaterThan(Date.now() - 60_000);
      await store.beatNode({ id, version: '1.2.4', startedAt: 1_000 }, 60_000);
      const again = (await store.liveNodes(30_000)).filter((n) => n.id === id);
      expect(again).toHaveLength(1);
      expect(again[0]).not.toHaveProperty('address');
      expect(again[0]!.version).toBe('1.2.4');
      expect((await store.liveNodes(-60_000)).some((n) => n.id === id)).toBe(false); // seen only "now", not in the future
      await store.dropNode(id);
      expect((await store.liveNodes(30_000)).some((n) => n.id === id)).toBe(false);
      await store.close();
    });

    it("forgets a stale node's row at another node's heartbeat", async () => {
      const store = await open();
      const [stale, fresh] = [`stale-${tagged()}`, `fresh-${tagged()}`];
      await store.beatNode({ id: stale, version: '1', startedAt: 1 }, 60_000);
      await new Promise((r) => setTimeout(r, 20)); // the stale row's heartbeat is now older than the next one forgets
      await store.beatNode({ id: fresh, version: '1', startedAt: 2 }, 5);
      const ids = (await store.liveNodes(60_000)).map((n) => n.id);
      expect(ids).toContain(fresh);
      expect(ids).not.toContain(stale);
      await store.dropNode(fresh);
      await store.close();
    });

    it('counts the tasks created in each hour of a span, within the scope only', async () => {
      const store = await open();
      const [ctx, other] = [`ctx-${tagged()}`, `ctx-${tagged()}`];
      const from = 100 * HOUR;
      const at = [from - 1, from, from + 10, from + HOUR + 5, from + 3 * HOUR - 1, from + 3 * HOUR];
      for (const createdAt of at)
        await store.createTask({ record: task(ctx, createdAt), newMessages: [], newArtifacts: [], events: [] });
      await store.createTask({
        record: task(ctx, from + 5, { visibility: 'participants', sender: 'ann', target: 'bob', kind: 'direct' }),
        newMessages: [],
        newArtifacts: [],
        events: [],
      });
      await store.createTask({ record: task(other, from + 5), newMessages: [], newArtifacts: [], events: [] });
      const publicIn = (contextId: string): TaskScope => ({
        anyOf: [{ visibility: { in: ['public'] }, contextId: { in: [contextId] } }],
      });
      expect(await store.countCreated(publicIn(ctx), from, HOUR, 3)).toEqual([2, 1, 1]);
      // Two branches are either-or: the private one's task counts in its hour.
      const both: TaskScope = {
        anyOf: [...publicIn(ctx).anyOf, { target: { in: ['bob'] }, contextId: { in: [ctx] } }],
      };
      expect(await store.countCreated(both, from, HOUR, 3)).toEqual([3, 1, 1]);
      expect(await store.countCreated({ anyOf: [] }, from, HOUR, 3)).toEqual([0, 0, 0]);
      await store.close();
    });
  });
}
