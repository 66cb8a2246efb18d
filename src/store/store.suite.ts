/**
 * The store contract as a suite: every Store implementation runs it against a real database
 * (an SQLite file, and PostgreSQL). Nothing here knows which one it is talking to.
 */
import { describe, expect, it } from 'vitest';
import {
  AgentPaused,
  HOLD_WINDOW,
  QuotaExceeded,
  StoreConflict,
  TokenNotLive,
  type Store,
  type TaskRecord,
} from './store.js';
import { taskScopes } from '../hub/view.js';
import { scopeAt } from '../hub/view-scopes.fixture.js';
import { bump, newTask } from './task-writes.fixture.js';

export function storeSuite(name: string, open: () => Promise<{ store: Store; reopen: () => Promise<Store> }>): void {
  describe(`store contract: ${name}`, () => {
    it('stores agents and finds live tokens by hash only', async () => {
      const { store } = await open();
      await store.insertAgent({ handle: 'ann', name: 'Ann', createdAt: 1 }, { id: 't1', hash: 'h1' });
      const ann = await store.getAgent('ann');
      // An agent registered without an id gets a UUID of its own, by which it is found too.
      expect(ann).toEqual({
        handle: 'ann',
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        name: 'Ann',
        createdAt: 1,
      });
      expect(await store.getAgentById(ann!.id)).toEqual(ann);
      await store.insertAgent(
        { handle: 'bo', id: '00000000-0000-4000-8000-00000000000b', createdAt: 1 },
        { id: 'tb', hash: 'hb' },
      );
      expect((await store.getAgentById('00000000-0000-4000-8000-00000000000b'))?.handle).toBe('bo');
      expect(await store.getAgentById('00000000-0000-4000-8000-00000000000c')).toBeUndefined();
      expect((await store.findToken('h1'))?.handle).toBe('ann');
      await expect(store.insertAgent({ handle: 'ann', createdAt: 2 }, { id: 't2', hash: 'h2' })).rejects.toBeInstanceOf(
        StoreConflict,
      );
      expect(await store.findToken('h2')).toBeUndefined();
      await store.insertToken('ann', { id: 't3', hash: 'h3' }, 5, true);
      expect(await store.findToken('h1')).toBeUndefined();
      expect((await store.findToken('h3'))?.id).toBe('t3');
      expect(await store.revokeToken('ann', 't3', 6)).toBe(true);
      expect(await store.findToken('h3')).toBeUndefined();
      expect((await store.listTokens('ann')).map((t) => [t.id, t.revokedAt !== undefined])).toEqual([
        ['t1', true],
        ['t3', true],
      ]);
      await store.close();
    });

    it('checks a live token given to a read or write in that read or write: a revoked one gets nothing, and nothing is written', async () => {
      const { store } = await open();
      await store.insertAgent({ handle: 'tia', createdAt: 1 }, { id: 'tt1', hash: 'live-hash' });
      const created = newTask();
      await store.createTask({ ...created, liveToken: 'live-hash' });
      const full = { includeArtifacts: true, liveToken: 'live-hash' };
      expect((await store.getTask(created.record.id, full))?.record.id).toBe(created.record.id);
      expect(await store.getTask('no-such-task', full)).toBeUndefined();
      await store.updateTask({ ...bump(created), liveToken: 'live-hash' });

      expect(await store.revokeToken('tia', 'tt1', 2)).toBe(true);
      const dead = { liveToken: 'live-hash' };
      await expect(store.getTask(created.record.id, { ...full, ...dead })).rejects.toBeInstanceOf(TokenNotLive);
      await expect(store.getTask('no-such-task', { ...full, ...dead })).rejects.toBeInstanceOf(TokenNotLive);
      await expect(
        store.getTask(created.record.id, { includeArtifacts: false, liveToken: 'never-issued' }),
      ).rejects.toBeInstanceOf(TokenNotLive);
      const refused = newTask();
      const receipt = { scope: 'tia', key: 'k', fingerprint: 'f', result: { taskId: refused.record.id } };
      await expect(
        store.createTask({ ...refused, receipt, quotas: [{ key: 'q', windowStart: 0, limit: 5 }], ...dead }),
      ).rejects.toBeInstanceOf(TokenNotLive);
      const later = bump(bump(created));
      await expect(store.updateTask({ ...later, expectedVersion: 2, ...dead })).rejects.toBeInstanceOf(TokenNotLive);
      expect(await store.getTask(refused.record.id, { includeArtifacts: false })).toBeUndefined();
      expect(await store.getReceipt('tia', 'k')).toBeUndefined();
      expect(await store.quotaUsed('q', 0)).toBe(0);
      expect((await store.getTask(created.record.id, { includeArtifacts: false }))?.record.version).toBe(2);
      await store.close();
    });

    it('checks a paused agent given to a write (unlessPaused) in that write: refused with when and by whom, and nothing is written', async () => {
      const { store } = await open();
      await store.insertAgent({ handle: 'pia', createdAt: 1 }, { id: 'tp1', hash: 'pia-hash' });
      const before = newTask({ target: 'pia' });
      await store.createTask({ ...before, unlessPaused: 'pia' });
      await store.setPause('pia', { at: 1_234, by: 'admin' });
      const refused = newTask({ target: 'pia' });
      const receipt = { scope: 'sender', key: 'kp', fingerprint: 'f', result: { taskId: refused.record.id } };
      const write = store.createTask({
        ...refused,
        receipt,
        quotas: [{ key: 'qp', windowStart: 0, limit: 5 }],
        unlessPaused: 'pia',
      });
      await expect(write).rejects.toBeInstanceOf(AgentPaused);
      await expect(write).rejects.toMatchObject({ agent: { handle: 'pia', paused: { at: 1_234, by: 'admin' } } });
      expect(await store.getTask(refused.record.id, { includeArtifacts: false })).toBeUndefined();
      expect(await store.getReceipt('sender', 'kp')).toBeUndefined();
      expect(await store.quotaUsed('qp', 0)).toBe(0);
      await store.setPause('pia', undefined);
      await store.createTask({ ...refused, unlessPaused: 'pia' });
      expect((await store.getTask(refused.record.id, { includeArtifacts: false }))?.record.id).toBe(refused.record.id);
      await store.close();
    });

    it('writes a task, its history and artifacts; updates are compare-and-set on the version', async () => {
      const { store } = await open();
      const created = newTask();
      await store.createTask(created);
      const next = bump(
        created,
        { state: 'TASK_STATE_WORKING', artifactCount: 1 },
        { newArtifacts: [{ artifactId: 'x', parts: [{ text: 'art' }] }] },
      );
      await store.updateTask(next);
      await expect(store.updateTask(bump(created))).rejects.toMatchObject({ what: 'version' });
      const got = await store.getTask(created.record.id, { includeArtifacts: true });
      expect(got?.record.state).toBe('TASK_STATE_WORKING');
      expect(got?.history.map((m) => m.messageId)).toEqual([`m-${created.record.id}`, 'follow-1']);
      expect(got?.artifacts).toEqual([{ artifactId: 'x', parts: [{ text: 'art' }] }]);
      const last = await store.getTask(created.record.id, { includeArtifacts: false, historyLength: 1 });
      expect(last?.history.map((m) => m.messageId)).toEqual(['follow-1']);
      expect(last?.artifacts).toEqual([]);
      await expect(store.createTask(created)).rejects.toMatchObject({ what: 'task-id' });
      await store.close();
    });

    it('keeps one write per receipt key: within one batch, and after the store is reopened', async () => {
      const { store, reopen } = await open();
      const receipt = (key: string, taskId: string) => ({ scope: 'r', key, fingerprint: 'f', result: { taskId } });
      const [a, b] = [newTask(), newTask()];
      const results = await Promise.allSettled([
        store.createTask({ ...a, receipt: receipt('same', a.record.id) }),
        store.createTask({ ...b, receipt: receipt('same', b.record.id) }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
      expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ what: 'receipt' });
      expect(await store.getTask(b.record.id, { includeArtifacts: false })).toBeUndefined();
      await store.close();

      const again = await reopen();
      expect(await again.getReceipt('r', 'same')).toEqual(receipt('same', a.record.id));
      const c = newTask();
      await expect(again.createTask({ ...c, receipt: receipt('same', c.record.id) })).rejects.toMatchObject({
        what: 'receipt',
      });
      await again.createTask({ ...c, receipt: { ...receipt('same', c.record.id), scope: 'another caller' } });
      expect(await again.getReceipt('another caller', 'same')).toMatchObject({ result: { taskId: c.record.id } });
      await again.close();
    });

    it('rolls the whole write back when a quota is over or a receipt exists', async () => {
      const { store } = await open();
      const quota = { key: 'q|a', windowStart: 0, limit: 1 };
      const first = newTask();
      await store.createTask({
        ...first,
        quotas: [quota],
        receipt: { scope: 's', key: 'k', fingerprint: 'f', result: { taskId: first.record.id } },
      });
      const over = newTask();
      await expect(store.createTask({ ...over, quotas: [quota] })).rejects.toBeInstanceOf(QuotaExceeded);
      expect(await store.getTask(over.record.id, { includeArtifacts: false })).toBeUndefined();
      const replayed = newTask();
      await expect(
        store.createTask({ ...replayed, receipt: { scope: 's', key: 'k', fingerprint: 'g', result: {} } }),
      ).rejects.toMatchObject({ what: 'receipt' });
      expect(await store.getTask(replayed.record.id, { includeArtifacts: false })).toBeUndefined();
      expect(await store.getReceipt('s', 'k')).toEqual({
        scope: 's',
        key: 'k',
        fingerprint: 'f',
        result: { taskId: first.record.id },
      });
      // a refused write in the same batch as a good one leaves the good one intact
      const good = newTask();
      const results = await Promise.allSettled([
        store.createTask(good),
        store.createTask({ ...newTask(), quotas: [quota] }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
      expect(await store.getTask(good.record.id, { includeArtifacts: false })).toBeDefined();
      await store.close();
    });

    it('lists by scope with keyset pages, newest update first, and counts the total', async () => {
      const { store } = await open();
      const writes = [
        newTask({ sender: 'p', target: 'q' }),
        newTask({ sender: 'q', target: 'p' }),
        newTask({ sender: 'p', target: 'r' }),
        newTask({ sender: 'r', target: 'q', state: 'TASK_STATE_COMPLETED' }),
        newTask({ kind: 'review', sender: 'r', target: undefined, visibility: 'public', state: 'TASK_STATE_WORKING' }),
      ];
      for (const w of writes) await store.createTask(w);
      const ids = (page: { tasks: { record: TaskRecord }[] }) => page.tasks.map((t) => t.record.id);
      const [pq, qp, pr, rq, pub] = writes.map((w) => w.record.id);
      const between = await store.listTasks({
        scope: scopeAt({ kind: 'agent', handle: 'p' }, { kind: 'agent', handle: 'q' }),
        limit: 10,
        includeArtifacts: false,
      });
      expect(ids(between)).toEqual([qp, pq]);
      // what p sees at the hub: the public task and its own private ones, never r's private task to q
      const visible = await store.listTasks({
        scope: scopeAt({ kind: 'agent', handle: 'p' }, { kind: 'hub' }),
        limit: 2,
        includeArtifacts: false,
      });
      expect(ids(visible)).toEqual([pub, pr]);
      expect(visible.total).toBe(4);
      expect(visible.hasMore).toBe(true);
      const rest = await store.listTasks({
        scope: scopeAt({ kind: 'agent', handle: 'p' }, { kind: 'hub' }),
        limit: 2,
        includeArtifacts: false,
        after: visible.tasks[1]!.record,
      });
      expect(ids(rest)).toEqual([qp, pq]);
      expect(rest.hasMore).toBe(false);
      const open_ = await store.listTasks({
        scope: taskScopes.public(),
        states: ['TASK_STATE_WORKING'],
        limit: 5,
        includeArtifacts: false,
      });
      expect(ids(open_)).toEqual([pub]);
      // r's sent list holds the task r sent to q, not the public task r posted (it has no target)
      expect(ids(await store.listTasks({ scope: taskScopes.sent('r'), limit: 5, includeArtifacts: false }))).toEqual([
        rq,
      ]);
      const done = await store.listTasks({
        scope: taskScopes.inbox('q'),
        states: ['TASK_STATE_COMPLETED'],
        limit: 5,
        includeArtifacts: false,
      });
      expect(ids(done)).toEqual([rq]);
      await store.close();
    });

    it('writes one sealed entry per author under its rule, leaving the task row untouched', async () => {
      const { store } = await open();
      const w = newTask({ state: 'TASK_STATE_WORKING' });
      await store.createTask(w);
      const taskId = w.record.id;
      const entry = (author: string) => ({
        entry: { taskId, author, id: `e-${author}`, body: { verdict: author }, createdAt: 5 },
        whileState: 'TASK_STATE_WORKING' as const,
        max: 2,
      });
      await store.addEntry({
        ...entry('a'),
        receipt: { scope: 's', key: 'a', fingerprint: 'f', result: { taskId } },
        quotas: [{ key: 'q', windowStart: 1, limit: 5 }],
      });
      await expect(store.addEntry(entry('a'))).rejects.toMatchObject({ what: 'entry-exists' });
      await store.addEntry(entry('b'));
      await expect(store.addEntry(entry('c'))).rejects.toMatchObject({ what: 'entry-full' });
      expect((await store.entries(taskId)).map((e) => [e.author, e.body])).toEqual([
        ['a', { verdict: 'a' }],
        ['b', { verdict: 'b' }],
      ]);
      expect((await store.entryOf(taskId, 'b'))?.id).toBe('e-b');
      expect(await store.entryOf(taskId, 'c')).toBeUndefined();
      expect((await store.getTask(taskId, { includeArtifacts: false }))?.record).toEqual(w.record);
      // An author's entries on every task, latest first.
      const later = newTask({ state: 'TASK_STATE_WORKING' });
      await store.createTask(later);
      await store.addEntry({
        ...entry('b'),
        entry: { ...entry('b').entry, taskId: later.record.id, id: 'e-b2', createdAt: 9 },
      });
      expect((await store.entriesBy('b', 10)).map((e) => e.id)).toEqual(['e-b2', 'e-b']);
      expect((await store.entriesBy('b', 1)).map((e) => e.id)).toEqual(['e-b2']);
      expect(await store.entriesBy('c', 10)).toEqual([]);
      expect(await store.eventsAfter(taskId, 0, 10)).toHaveLength(1);
      // a quota over its limit rolls the entry back; a task that moved on takes no entry
      const other = newTask({ state: 'TASK_STATE_WORKING' });
      await store.createTask(other);
      const mine = {
        entry: { taskId: other.record.id, author: 'a', id: 'x', body: {}, createdAt: 6 },
        whileState: 'TASK_STATE_WORKING' as const,
        max: 5,
      };
      await expect(
        store.addEntry({ ...mine, quotas: [{ key: 'q', windowStart: 1, limit: 1 }] }),
      ).rejects.toBeInstanceOf(QuotaExceeded);
      expect(await store.entries(other.record.id)).toEqual([]);
      await store.updateTask(bump(other, { state: 'TASK_STATE_COMPLETED' }));
      await expect(store.addEntry(mine)).rejects.toMatchObject({ what: 'entry-closed' });
      // an evaluation that read n entries does not hold once there are more
      const third = newTask({ state: 'TASK_STATE_WORKING' });
      await store.createTask(third);
      await store.addEntry({ ...mine, entry: { ...mine.entry, taskId: third.record.id } });
      await expect(store.updateTask(bump(third, {}, { entriesSeen: 0 }))).rejects.toMatchObject({ what: 'version' });
      await store.updateTask(bump(third, {}, { entriesSeen: 1 }));
      await store.close();
    });

    it('leases due work once, and forgets it with the write that does it', async () => {
      const { store } = await open();
      const a = newTask();
      const b = newTask();
      expect(await store.nextDue()).toBeUndefined();
      await store.createTask({ ...b, dueAt: 200 });
      expect(await store.nextDue()).toBe(200);
      await store.createTask({ ...a, dueAt: 100 });
      expect(await store.nextDue()).toBe(100);
      expect(await store.claimDue('me', 50, 1_000, 10)).toEqual([]);
      expect(await store.claimDue('me', 150, 1_000, 10)).toEqual([{ taskId: a.record.id, dueAt: 100 }]);
      expect(await store.claimDue('you', 250, 1_000, 10)).toEqual([{ taskId: b.record.id, dueAt: 200 }]); // a is leased
      await expect(store.updateTask(bump(a, {}, { dueDone: 'you' }))).rejects.toMatchObject({ what: 'lease' }); // not the holder
      expect((await store.getTask(a.record.id, { includeArtifacts: false }))?.record.version).toBe(a.record.version); // nothing written
      await store.updateTask(bump(a, {}, { dueDone: 'me' }));
      await store.finishDue(b.record.id, 'me'); // not the holder: nothing happens
      expect(await store.claimDue('me', 2_000, 3_000, 10)).toEqual([{ taskId: b.record.id, dueAt: 200 }]); // b's lease ran out
      await store.finishDue(b.record.id, 'me');
      expect(await store.claimDue('me', 5_000, 6_000, 10)).toEqual([]);
      await store.close();
    });

    it('counts holds (things held at once) until they are given back, and keeps them through pruning', async () => {
      const { store } = await open();
      const hold = { key: 'open|p', windowStart: HOLD_WINDOW, limit: 1 };
      await store.createTask({ ...newTask(), quotas: [hold] });
      await expect(store.createTask({ ...newTask(), quotas: [hold] })).rejects.toBeInstanceOf(QuotaExceeded);
      await store.prune(Date.now() + 10 * 86_400_000);
      await expect(store.createTask({ ...newTask(), quotas: [hold] })).rejects.toBeInstanceOf(QuotaExceeded);
      const w = newTask();
      await store.createTask({
        ...w,
        quotas: [
          { ...hold, amount: -1 },
          { ...hold, amount: -1 },
        ],
      }); // never below zero
      await store.createTask({ ...newTask(), quotas: [hold] });
      await expect(store.createTask({ ...newTask(), quotas: [hold] })).rejects.toBeInstanceOf(QuotaExceeded);
      await store.close();
    });

    it('refuses a read, write or token lookup whose gate is closed, before its token, and writes nothing', async () => {
      const { store } = await open();
      await store.insertAgent({ handle: 'gia', createdAt: 1 }, { id: 'tg1', hash: 'gia-hash' });
      const closed = { key: 'refused|203.0.113.1', windowStart: 0, limit: 1 };
      const opened = { key: 'refused|198.51.100.1', windowStart: 0, limit: 1 };
      await store.chargeQuotas([closed]);
      expect((await store.findToken('gia-hash', [opened]))?.handle).toBe('gia');
      expect(await store.findToken('never-issued', [opened])).toBeUndefined();
      await expect(store.findToken('gia-hash', [opened, closed])).rejects.toBeInstanceOf(QuotaExceeded);
      await expect(store.findToken('never-issued', [closed])).rejects.toBeInstanceOf(QuotaExceeded); // the gate comes first
      const created = newTask();
      await store.createTask({ ...created, liveToken: 'gia-hash', tokenGate: [opened] });
      const gated = { includeArtifacts: true, liveToken: 'gia-hash', tokenGate: [closed] };
      await expect(store.getTask(created.record.id, gated)).rejects.toBeInstanceOf(QuotaExceeded);
      await expect(store.getTask(created.record.id, { ...gated, liveToken: 'never-issued' })).rejects.toBeInstanceOf(
        QuotaExceeded,
      );
      const refused = newTask();
      await expect(store.createTask({ ...refused, liveToken: 'gia-hash', tokenGate: [closed] })).rejects.toBeInstanceOf(
        QuotaExceeded,
      );
      await expect(
        store.updateTask({ ...bump(created), liveToken: 'gia-hash', tokenGate: [closed] }),
      ).rejects.toBeInstanceOf(QuotaExceeded);
      expect(await store.getTask(refused.record.id, { includeArtifacts: false })).toBeUndefined();
      expect((await store.getTask(created.record.id, { includeArtifacts: false }))?.record.version).toBe(1);
      await store.close();
    });

    it('counts charges that pay for no write on their own, all or none, never past the limit', async () => {
      const { store } = await open();
      const failure = { key: 'refused|203.0.113.9', windowStart: 60_000, limit: 2 };
      await store.chargeQuotas([failure]);
      await store.chargeQuotas([failure]);
      await expect(store.chargeQuotas([failure])).rejects.toBeInstanceOf(QuotaExceeded);
      expect(await store.quotaUsed(failure.key, failure.windowStart)).toBe(2);
      const other = { key: 'refused|198.51.100.9', windowStart: 60_000, limit: 2 };
      await expect(store.chargeQuotas([other, failure])).rejects.toBeInstanceOf(QuotaExceeded);
      expect(await store.quotaUsed(other.key, other.windowStart)).toBe(0); // the refusal counted nothing
      await store.close();
    });
  });
}
