/**
 * The inbox contract as a suite (inbox.ts), run against every dialect: a task write's inbox
 * events are numbered per agent without gaps, stand or fall with the write, are announced with
 * the log's end (or UNNUMBERED), and replay by task state. Handles carry a tag of
 * each test's own, so the suite also holds on a database other tests write to.
 */
import { describe, expect, it } from 'vitest';
import {
  inboxKey,
  PartsRefused,
  StoreConflict,
  UNNUMBERED,
  type InboxEvent,
  type Store,
  type TaskEvent,
  type TaskRecord,
  type TaskWrite,
} from './store.js';

const tagged = () => Math.random().toString(36).slice(2, 10);

function opening(target: string, over: Partial<TaskRecord> = {}): TaskWrite {
  const id = `task-${tagged()}`;
  const record: TaskRecord = {
    id,
    kind: 'direct',
    contextId: 'ctx',
    sender: 'ann',
    target,
    visibility: 'participants',
    state: 'TASK_STATE_SUBMITTED',
    statusAt: 10,
    createdAt: 10,
    updatedAt: 10,
    messageCount: 0,
    artifactCount: 0,
    version: 1,
    lastSeq: 0,
    ...over,
  };
  const task: InboxEvent = {
    kind: 'task',
    task: { id, contextId: 'ctx', status: { state: record.state, timestamp: '' } },
  };
  return { record, newMessages: [], newArtifacts: [], events: [], inbox: { agent: target, events: [task] } };
}

/** A follow-up by the sender, as a task write that adds one message. */
const followUp = (w: TaskWrite, messageId: string): TaskWrite => ({
  record: { ...w.record, version: w.record.version + 1, updatedAt: 12, messageCount: w.record.messageCount + 1 },
  expectedVersion: w.record.version,
  newMessages: [{ messageId, role: 'ROLE_USER', parts: [{ text: 'and another thing' }] }],
  newArtifacts: [],
  events: [],
  inbox: {
    agent: w.record.target!,
    events: [
      {
        kind: 'message',
        taskId: w.record.id,
        message: { messageId, role: 'ROLE_USER', parts: [{ text: 'and another thing' }] },
      },
    ],
  },
});

/** The task event a first listener reads of a task (its history by message id). */
const asOpen = (w: TaskWrite, messageIds: string[] = []): TaskEvent => ({
  kind: 'task',
  task: {
    id: w.record.id,
    contextId: 'ctx',
    status: { state: w.record.state, timestamp: '' },
    history: messageIds.map((messageId) => ({ messageId, role: 'ROLE_USER', parts: [{ text: '…' }] })),
  },
});

/** The agent's log begun and completed, as its first listener leaves it with no open tasks. */
async function listened(store: Store, agent: string): Promise<void> {
  await store.beginInboxLog(agent);
  await store.completeInboxLog(agent, []);
}

const canceled = (w: TaskWrite): TaskWrite => ({
  record: { ...w.record, state: 'TASK_STATE_CANCELED', version: w.record.version + 1, updatedAt: 11 },
  expectedVersion: w.record.version,
  newMessages: [],
  newArtifacts: [],
  events: [],
  inbox: {
    agent: w.record.target!,
    events: [
      {
        kind: 'message',
        taskId: w.record.id,
        message: { messageId: `m-${tagged()}`, role: 'ROLE_USER', parts: [{ text: 'never mind' }] },
      },
      { kind: 'cancel', taskId: w.record.id, reason: 'late' },
    ],
  },
});

export function inboxSuite(name: string, open: () => Promise<Store>): void {
  describe(`inbox contract: ${name}`, () => {
    it("numbers each agent's events 1, 2, 3… with the writes, and announces the log's end", async () => {
      const store = await open();
      const bob = `bob-${tagged()}`;
      await listened(store, bob);
      const heard: [string, number][] = [];
      store.events.onTask((c) => c.log === inboxKey(bob) && heard.push([c.log, c.lastSeq]));
      expect(await store.inboxHead(bob)).toBe(0);
      const first = opening(bob);
      await store.createTask(first);
      await store.createTask(opening(`other-${tagged()}`));
      await store.updateTask(canceled(first));
      expect(await store.inboxHead(bob)).toBe(3);
      const log = await store.inboxAfter(bob, 0, 10);
      expect(log.map((e) => [e.seq, e.event.kind])).toEqual([
        [1, 'task'],
        [2, 'message'],
        [3, 'cancel'],
      ]);
      expect((await store.inboxAfter(bob, 2, 10)).map((e) => e.seq)).toEqual([3]);
      expect(heard.map(([key]) => key)).toEqual([inboxKey(bob), inboxKey(bob)]);
      heard.forEach(([, lastSeq], i) => expect([UNNUMBERED, [1, 3][i]]).toContain(lastSeq)); // a dialect that numbers when read says so
      await store.close();
    });

    it('writes nothing to the inbox when the task write is refused', async () => {
      const store = await open();
      const bob = `bob-${tagged()}`;
      await listened(store, bob);
      const w = opening(bob);
      await store.createTask(w);
      await expect(store.createTask({ ...w, record: { ...w.record } })).rejects.toBeInstanceOf(StoreConflict); // the same id again
      await expect(store.updateTask({ ...canceled(w), expectedVersion: 7 })).rejects.toBeInstanceOf(StoreConflict); // a stale version
      expect(await store.inboxHead(bob)).toBe(1);
      expect(await store.inboxAfter(bob, 0, 10)).toHaveLength(1);
      await store.close();
    });

    it('keeps numbers gapless under writes at once', async () => {
      const store = await open();
      const bob = `bob-${tagged()}`;
      await listened(store, bob);
      await Promise.all(Array.from({ length: 20 }, () => store.createTask(opening(bob))));
      expect((await store.inboxAfter(bob, 0, 100)).map((e) => e.seq)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      await store.close();
    });

    it('shows each reader a gapless prefix while writes and other readers run at once', async () => {
      const store = await open();
      const bob = `bob-${tagged()}`;
      await listened(store, bob);
      const reads: Promise<number[]>[] = [];
      const writes = Array.from({ length: 20 }, (_, i) => {
        if (i % 4 === 0) reads.push(store.inboxAfter(bob, 0, 100).then((log) => log.map((e) => e.seq)));
        return store.createTask(opening(bob));
      });
      await Promise.all(writes);
      for (const seen of await Promise.all(reads))
        expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
      expect(await store.inboxHead(bob)).toBe(20);
      expect((await store.inboxAfter(bob, 0, 100)).map((e) => e.seq)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      await store.close();
    });

    it('replays the events of the tasks in the given states, in a range', async () => {
      const store = await open();
      const bob = `bob-${tagged()}`;
      await listened(store, bob);
      const open1 = opening(bob);
      const gone = opening(bob);
      const open2 = opening(bob);
      for (const w of [open1, gone, open2]) await store.createTask(w);
      await store.updateTask(canceled(gone));
      expect(await store.inboxHead(bob)).toBe(5); // the head a replay runs through is one read before
      const replay = await store.inboxOfTasksIn(bob, 0, 5, ['TASK_STATE_SUBMITTED'], 10);
      expect(replay.map((e) => e.seq)).toEqual([1, 3]);
      expect(replay.map((e) => (e.event.kind === 'task' ? e.event.task.id : ''))).toEqual([
        open1.record.id,
        open2.record.id,
      ]);
      expect((await store.inboxOfTasksIn(bob, 1, 2, ['TASK_STATE_SUBMITTED'], 10)).map((e) => e.seq)).toEqual([]);
      await store.close();
    });

    it('refuses in the write a part the agent does not take', async () => {
      const store = await open();
      const bob = `bob-${tagged()}`;
      await listened(store, bob);
      const takes = (mediaTypes: (string | null)[]) => ({
        agent: bob,
        mediaTypes,
        defaults: ['text/plain', 'image/*'],
      });
      const refused = store.createTask({ ...opening(bob), takes: takes(['text/plain', null, 'application/json']) });
      await expect(refused).rejects.toBeInstanceOf(PartsRefused);
      await expect(refused).rejects.toMatchObject({
        agent: bob,
        index: 2,
        mediaType: 'application/json',
        modes: ['text/plain', 'image/*'],
      });
      expect(await store.inboxHead(bob)).toBe(0); // nothing written
      expect(await store.createTask({ ...opening(bob), takes: takes(['image/png', null]) })).toEqual({
        forwarded: false,
      });
      expect(await store.inboxHead(bob)).toBe(1);
      await store.close();
    });

    it('logs nothing for an agent that never listened; its first listener finds its open tasks first, then what was logged since', async () => {
      const store = await open();
      const bob = `bob-${tagged()}`;
      const [early, gone, answered] = [opening(bob), opening(bob), opening(bob)];
      for (const w of [early, gone, answered]) await store.createTask(w);
      await store.updateTask(canceled(gone));
      expect(await store.inboxHead(bob)).toBe(0);
      expect(await store.inboxAfter(bob, 0, 10)).toEqual([]);
      expect(await store.beginInboxLog(bob)).toBe(false);
      // Between the log's beginning and its completion: a new task, and follow-ups to old ones.
      const late = opening(bob);
      await store.createTask(late);
      await store.updateTask(followUp(early, 'm-seen'));
      await store.updateTask(followUp(answered, 'm-after'));
      // What the listener read: `early` with the follow-up in its history, `answered` before its own, and `late`.
      await store.completeInboxLog(bob, [asOpen(early, ['m-seen']), asOpen(answered), asOpen(late)]);
      const log = await store.inboxAfter(bob, 0, 10);
      expect(log.map((e) => [e.seq, e.event.kind, e.event.kind === 'task' ? e.event.task.id : e.event.taskId])).toEqual(
        [
          [1, 'task', early.record.id],
          [2, 'task', answered.record.id],
          [3, 'task', late.record.id],
          [4, 'message', answered.record.id],
        ],
      );
      expect(await store.inboxHead(bob)).toBe(4);
      // Complete for good: a second listener's completion changes nothing, and writes log on.
      expect(await store.beginInboxLog(bob)).toBe(true);
      await store.completeInboxLog(bob, [asOpen(gone)]);
      await store.createTask(opening(bob));
      expect((await store.inboxAfter(bob, 0, 10)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      await store.close();
    });
  });
}
